import { Controller, Delete } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, Caller } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { SandboxResetResponse } from './sandbox.response';
import { SandboxService } from './sandbox.service';
import { ApiErrorCodes } from '../openapi/operation-docs.decorators';

@ApiTags('sandbox')
@ApiBearerAuth()
@Controller('sandbox')
export class SandboxController {
  constructor(private readonly sandbox: SandboxService) {}

  @Delete()
  @ApiOperation({
    summary: "Reset the test environment: remove the creator's test links and test clicks",
    description:
      'Test keys (lp_test_sk_) only; a live key answers 403 TEST_KEY_REQUIRED. Live links, ' +
      'clicks and usage are never touched.',
  })
  @ApiErrorCodes(ErrorCode.TEST_KEY_REQUIRED)
  @ApiEnvelopedOk(SandboxResetResponse)
  reset(@Caller() caller: AuthContext): Promise<SandboxResetResponse> {
    if (caller.environment !== 'test') {
      throw new AppError(
        ErrorCode.TEST_KEY_REQUIRED,
        'Only a test key (lp_test_sk_) can reset the sandbox; live data is never reset.',
      );
    }
    return this.sandbox.reset(caller.creatorId);
  }
}

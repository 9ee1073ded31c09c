import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, Caller } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { AccountResponse } from './account.response';
import { AccountService } from './account.service';

@ApiTags('account')
@ApiBearerAuth()
@Controller('account')
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get()
  @ApiOperation({
    summary: "The caller's plan and click usage this period",
    description:
      'Usage of the key’s environment: a live key the billed live clicks, a test key the ' +
      'sandbox’s test clicks (never billed, never counted against the quota).',
  })
  @ApiEnvelopedOk(AccountResponse)
  getAccount(@Caller() caller: AuthContext): Promise<AccountResponse> {
    return this.account.getAccount(caller);
  }
}

import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { FxRatesResponse } from './fx-rates.response';
import { FxService } from './fx.service';
import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorCodes } from '../openapi/operation-docs.decorators';

@ApiTags('fx')
@ApiBearerAuth()
@Controller('fx-rates')
export class FxController {
  constructor(private readonly fx: FxService) {}

  @Get()
  @ApiOperation({
    summary: 'Current FX rates per 1 USD, from the latest daily refresh',
    description:
      'The rates routing uses to compare earnings in USD, with the day they were fetched. ' +
      '503 FX_DATA_UNAVAILABLE when no rates have ever been stored.',
  })
  @ApiErrorCodes(ErrorCode.FX_DATA_UNAVAILABLE)
  @ApiEnvelopedOk(FxRatesResponse)
  getRates(): Promise<FxRatesResponse> {
    return this.fx.getRates();
  }
}

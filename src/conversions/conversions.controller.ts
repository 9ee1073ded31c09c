import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, Caller } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorExamples, CONVERSION_EXAMPLE } from './conversion-docs';
import { PostbackTokenResponse, RecordConversionsResponse } from './conversion.response';
import { ConversionsService } from './conversions.service';
import { RecordConversionsDto } from './dto/record-conversions.dto';
import { PostbackTokensService } from './postback-tokens.service';

@ApiTags('conversions')
@ApiBearerAuth()
@Controller('conversions')
export class ConversionsController {
  constructor(
    private readonly conversions: ConversionsService,
    private readonly tokens: PostbackTokensService,
  ) {}

  @Post()
  @HttpCode(207)
  @ApiOperation({
    summary: "Record 1 to 1,000 of the networks' conversions, each independently (207)",
    description:
      "Each item is one status (`pending`, `approved`, `reversed`) of one order as a network reports it. It is recorded once per network, order id and status in the key's creator and environment: sent again, it answers `replayed: true` and changes nothing. A `clickId` naming one of the caller's stored clicks attributes it to that click's link, route, region, visitor country and device; an unknown one keeps it unattributed, and one of another creator or environment is refused (`CLICK_NOT_IN_SCOPE`). Amounts are converted to USD at `occurredAt`'s rates. An approval moves an order's commission from pending to approved; a reversal takes out what the order counted. Each new item sends `conversion.recorded` or `conversion.reversed` to the caller's webhooks.",
  })
  @ApiBody({
    type: RecordConversionsDto,
    examples: {
      pending: {
        summary: 'A pending order of a click',
        value: { conversions: [CONVERSION_EXAMPLE] },
      },
      approvedAndReversed: {
        summary: 'An approval and a reversal of other orders, in euros',
        value: {
          conversions: [
            {
              ...CONVERSION_EXAMPLE,
              networkId: 'awin',
              orderId: 'AW-88123',
              status: 'approved',
              currency: 'EUR',
              saleAmount: 80,
              commission: 6.4,
            },
            {
              ...CONVERSION_EXAMPLE,
              networkId: 'awin',
              orderId: 'AW-88100',
              status: 'reversed',
              currency: 'EUR',
              saleAmount: 45,
              commission: 3.6,
            },
          ],
        },
      },
    },
  })
  @ApiEnvelopedOk(RecordConversionsResponse, 207)
  @ApiErrorExamples(400, 'No items, more than 1,000, or a body that is not a list', [
    {
      code: ErrorCode.BULK_LIMIT_EXCEEDED,
      message: 'A request holds 1 to 1000 conversions; this one has 0.',
    },
    {
      code: ErrorCode.VALIDATION_ERROR,
      message: 'Invalid request: conversions.',
      details: { conversions: ['conversions must be an array of 1 to 1000 conversions'] },
    },
  ])
  record(
    @Caller() caller: AuthContext,
    @Body() body: RecordConversionsDto,
  ): Promise<RecordConversionsResponse> {
    return this.conversions.recordBatch(caller, body.conversions);
  }

  @Post('postback-token')
  @ApiOperation({
    summary: "Make the key environment's postback token, replacing the previous one",
    description:
      "The token goes in the postback URL the networks call (`/postbacks/<token>/<networkId>`); it is shown once (only its SHA-256 is stored). A new token replaces the previous one at once: postbacks with the old one are refused with 401 `POSTBACK_TOKEN_INVALID`. A test key's token records test conversions.",
  })
  @ApiEnvelopedOk(PostbackTokenResponse, 201)
  rotatePostbackToken(@Caller() caller: AuthContext): Promise<PostbackTokenResponse> {
    return this.tokens.rotate(caller);
  }
}

import {
  applyDecorators,
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
} from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorExamples } from './conversion-docs';
import { PostbackResponse } from './conversion.response';
import { ConversionsService } from './conversions.service';
import { conversionFromPostback, PostbackParams } from './postback-fields';
import { PostbackTokensService } from './postback-tokens.service';
import { ApiPathParameterFrom } from '../openapi/operation-docs.decorators';

const POSTBACK_QUERY = [
  [
    'clickId',
    'The sub-id the network sends back (the click record id)',
    '01JD5ZQ7X6M3W1H8K2C4N9P0RT',
  ],
  ['orderId', 'Required: the order id', '114-3941689-8772232'],
  [
    'status',
    "The network's status word (pending, approved, locked, declined, ...); default pending",
    'pending',
  ],
  ['saleAmount', 'Default 0', '129.99'],
  ['commission', 'Required', '5.20'],
  ['currency', 'Default USD', 'USD'],
  [
    'occurredAt',
    'ISO 8601 or epoch seconds; default: when the postback arrives',
    '2026-11-20T14:03:00Z',
  ],
] as const;

/** Documents the postback's parameters, all optional in the schema (mapped, then validated). */
const ApiPostbackQuery = (): MethodDecorator =>
  applyDecorators(
    ...POSTBACK_QUERY.map(([name, description, example]) =>
      ApiQuery({ name, required: false, description, example }),
    ),
  );

const ApiPostbackErrors = (): MethodDecorator =>
  applyDecorators(
    ApiErrorExamples(400, 'A field missing or invalid once mapped', [
      {
        code: ErrorCode.VALIDATION_ERROR,
        message: 'Invalid conversion: orderId.',
        details: { orderId: ['orderId must be a string'] },
      },
    ]),
    ApiErrorExamples(401, 'Unknown or replaced token', [
      {
        code: ErrorCode.POSTBACK_TOKEN_INVALID,
        message:
          'Unknown postback token: it was never issued or has been replaced. Make one with POST /v1/conversions/postback-token and update the postback URL at the network.',
      },
    ]),
    ApiErrorExamples(403, "The click id is another creator's or environment's click", [
      {
        code: ErrorCode.CLICK_NOT_IN_SCOPE,
        message:
          "Click 01JD5ZQ7X6M3W1H8K2C4N9P0RT is not a click of this key's creator and environment: check which postback token or key the network uses.",
      },
    ]),
  );

/** The `{token}` of a postback: the token POST /v1/conversions/postback-token answers. */
const ApiPostbackTokenParameter = (): MethodDecorator =>
  ApiPathParameterFrom(
    'token',
    'The postback token, as POST /conversions/postback-token answers it',
    {
      operationId: 'ConversionsController_rotatePostbackToken',
      status: 201,
      pointer: '/data/token',
    },
  );

const DESCRIPTION =
  'A network\'s server-to-server postback of one conversion, outside /v1 and without an API key: the token in the path (POST /v1/conversions/postback-token) names the creator and environment. The parameters come from the query (GET, POST) and a JSON object body (POST); names are compared without case; docs/conversions.md ("Postbacks per network") has each network\'s template. Idempotent like POST /v1/conversions: a replayed postback answers `replayed: true` and changes nothing.';

/**
 * GET|POST /postbacks/<token>/<networkId>: outside /v1 (bootstrap.ts excludes it from the
 * prefix) and public, as networks call it with the token as their only credential.
 */
@ApiTags('conversions')
@Controller('postbacks')
export class PostbacksController {
  constructor(
    private readonly conversions: ConversionsService,
    private readonly tokens: PostbackTokensService,
    private readonly clock: Clock,
  ) {}

  @Get(':token/:networkId')
  @Public()
  @ApiOperation({ summary: 'A postback of one conversion (GET)', description: DESCRIPTION })
  @ApiPostbackTokenParameter()
  @ApiParam({ name: 'networkId', example: 'amazon_associates' })
  @ApiPostbackQuery()
  @ApiEnvelopedOk(PostbackResponse)
  @ApiPostbackErrors()
  receiveGet(
    @Param('token') token: string,
    @Param('networkId') networkId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<PostbackResponse> {
    return this.receive(token, networkId, query);
  }

  @Post(':token/:networkId')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'A postback of one conversion (POST)', description: DESCRIPTION })
  @ApiPostbackTokenParameter()
  @ApiParam({ name: 'networkId', example: 'awin' })
  @ApiPostbackQuery()
  @ApiBody({
    required: false,
    schema: { type: 'object', additionalProperties: true },
    examples: {
      approved: {
        summary: 'An approval, fields in the body',
        value: {
          clickId: '01JD5ZQ7X6M3W1H8K2C4N9P0RT',
          orderId: 'AW-88123',
          status: 'approved',
          saleAmount: 80,
          commission: 6.4,
          currency: 'EUR',
          occurredAt: '2026-11-20T14:03:00Z',
        },
      },
    },
  })
  @ApiEnvelopedOk(PostbackResponse)
  @ApiPostbackErrors()
  receivePost(
    @Param('token') token: string,
    @Param('networkId') networkId: string,
    @Query() query: Record<string, unknown>,
    @Body() body: unknown,
  ): Promise<PostbackResponse> {
    const fields =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? { ...query, ...(body as Record<string, unknown>) }
        : query;
    return this.receive(token, networkId, fields);
  }

  private async receive(
    token: string,
    networkId: string,
    params: PostbackParams,
  ): Promise<PostbackResponse> {
    const scope = await this.tokens.scopeOf(token);
    const item = conversionFromPostback(networkId, params, this.clock.nowMs());
    const [outcome] = await this.conversions.record(scope, [item], 'postback');
    if ('error' in outcome) throw outcome.error;
    return { replayed: outcome.replayed, conversion: outcome.conversion };
  }
}

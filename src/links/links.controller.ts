import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Throttle } from '@nestjs/throttler';
import {
  AuthContext,
  Caller,
  planRateLimit,
  RequiresPlanCapability,
} from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorCodes, ApiRequestExamples } from '../openapi/operation-docs.decorators';
import { IdempotentCreate } from '../idempotency/idempotent-create.decorator';
import { BulkCreateLinksDto } from './dto/bulk-create-links.dto';
import { CreateLinkDto } from './dto/create-link.dto';
import { ListLinksQuery } from './dto/list-links.query';
import { UpdateLinkDto } from './dto/update-link.dto';
import {
  ApiLinkIdParameter,
  BULK_CREATE_LINKS_EXAMPLES,
  CREATE_LINK_EXAMPLES,
  UPDATE_LINK_EXAMPLES,
} from './links.examples';
import {
  BulkCreateLinksResponse,
  DeleteLinkResponse,
  LinkEnvelope,
  LinkListResponse,
} from './link.response';
import { LinksService } from './links.service';

@ApiTags('links')
@ApiBearerAuth()
@Controller('links')
export class LinksController {
  constructor(private readonly links: LinksService) {}

  @Post()
  @IdempotentCreate()
  @ApiOperation({
    summary: 'Create a routed link (201)',
    description:
      'Canonicalises `originalUrl`, picks the storefront and network with the best expected ' +
      'earnings per click for the visitor fields given (or the merchant defaults), and stores ' +
      'the link with its routing trace. `linkpilotUrl` is the /r/ address to share. A URL ' +
      'outside the knowledge base is stored as passthrough. `networkOverride` pins a network ' +
      'the merchant offers in the routed region (else 400 NETWORK_OVERRIDE_UNAVAILABLE).',
  })
  @ApiRequestExamples(CreateLinkDto, CREATE_LINK_EXAMPLES)
  @ApiErrorCodes(ErrorCode.NETWORK_OVERRIDE_UNAVAILABLE)
  @ApiEnvelopedOk(LinkEnvelope, 201)
  create(@Caller() caller: AuthContext, @Body() body: CreateLinkDto): Promise<LinkEnvelope> {
    return this.links.create(caller, body);
  }

  @Post('bulk')
  @HttpCode(207)
  @IdempotentCreate()
  @RequiresPlanCapability('hasBulkAccess')
  // The bulk bucket, on top of the general one.
  @Throttle({ bulk: { limit: planRateLimit('bulkRequestsPerMinute') } })
  @ApiOperation({
    summary: 'Create 1 to 100 links, each independently (Enterprise; 207)',
    description:
      'Each item is a POST /links body, validated and routed on its own: the answer lists ' +
      'the created links and, by index, the items refused with their error. A request ' +
      'outside 1 to 100 items is 400 BULK_LIMIT_EXCEEDED. Enterprise only, with its own ' +
      'per-minute bucket on top of the general one.',
  })
  @ApiRequestExamples(BulkCreateLinksDto, BULK_CREATE_LINKS_EXAMPLES)
  @ApiErrorCodes(ErrorCode.BULK_LIMIT_EXCEEDED, ErrorCode.ENTERPRISE_TIER_REQUIRED)
  @ApiEnvelopedOk(BulkCreateLinksResponse, 207)
  createMany(
    @Caller() caller: AuthContext,
    @Body() body: BulkCreateLinksDto,
  ): Promise<BulkCreateLinksResponse> {
    return this.links.createMany(caller, body);
  }

  @Get()
  @ApiOperation({
    summary: "The caller's links, newest first",
    description:
      "Links of the key's environment (live or test), paginated, filtered by merchant, " +
      'network, preset, group, creation time, passthrough or a search in title and URL.',
  })
  @ApiEnvelopedOk(LinkListResponse)
  list(@Caller() caller: AuthContext, @Query() query: ListLinksQuery): Promise<LinkListResponse> {
    return this.links.list(caller, query);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One link with its routing trace',
    description: 'A deleted link, or one of another key environment, is 404 LINK_NOT_FOUND.',
  })
  @ApiLinkIdParameter()
  @ApiErrorCodes(ErrorCode.LINK_NOT_FOUND)
  @ApiEnvelopedOk(LinkEnvelope)
  get(@Caller() caller: AuthContext, @Param('id') id: string): Promise<LinkEnvelope> {
    return this.links.get(caller, id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update the fields present; routing is not re-run',
    description:
      'Only the fields sent change; `null` removes a removable one (network pin, category, ' +
      'group, UTM override, notes). The stored routing decision is served as before, except ' +
      'that a network pin must be one the merchant offers in the routed region.',
  })
  @ApiLinkIdParameter()
  @ApiRequestExamples(UpdateLinkDto, UPDATE_LINK_EXAMPLES)
  @ApiErrorCodes(
    ErrorCode.LINK_NOT_FOUND,
    ErrorCode.NETWORK_OVERRIDE_UNAVAILABLE,
    ErrorCode.UNSUPPORTED_MERCHANT,
  )
  @ApiEnvelopedOk(LinkEnvelope)
  update(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Body() body: UpdateLinkDto,
  ): Promise<LinkEnvelope> {
    return this.links.update(caller, id, body);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Soft-delete; the redirect then answers 404',
    description:
      'The link leaves lists and reads, and /r/ answers 404 for it; a second DELETE is 404.',
  })
  @ApiLinkIdParameter()
  @ApiErrorCodes(ErrorCode.LINK_NOT_FOUND)
  @ApiEnvelopedOk(DeleteLinkResponse)
  remove(@Caller() caller: AuthContext, @Param('id') id: string): Promise<DeleteLinkResponse> {
    return this.links.remove(caller, id);
  }
}

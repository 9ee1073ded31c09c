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
import { IdempotentCreate } from '../idempotency/idempotent-create.decorator';
import { BulkCreateLinksDto } from './dto/bulk-create-links.dto';
import { CreateLinkDto } from './dto/create-link.dto';
import { ListLinksQuery } from './dto/list-links.query';
import { UpdateLinkDto } from './dto/update-link.dto';
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
  @ApiOperation({ summary: 'Create a routed link (201)' })
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
  @ApiOperation({ summary: 'Create 1 to 100 links, each independently (Enterprise; 207)' })
  @ApiEnvelopedOk(BulkCreateLinksResponse, 207)
  createMany(
    @Caller() caller: AuthContext,
    @Body() body: BulkCreateLinksDto,
  ): Promise<BulkCreateLinksResponse> {
    return this.links.createMany(caller, body);
  }

  @Get()
  @ApiOperation({ summary: "The caller's links, newest first" })
  @ApiEnvelopedOk(LinkListResponse)
  list(@Caller() caller: AuthContext, @Query() query: ListLinksQuery): Promise<LinkListResponse> {
    return this.links.list(caller, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One link with its routing trace' })
  @ApiEnvelopedOk(LinkEnvelope)
  get(@Caller() caller: AuthContext, @Param('id') id: string): Promise<LinkEnvelope> {
    return this.links.get(caller, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update the fields present; routing is not re-run' })
  @ApiEnvelopedOk(LinkEnvelope)
  update(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Body() body: UpdateLinkDto,
  ): Promise<LinkEnvelope> {
    return this.links.update(caller, id, body);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Soft-delete; the redirect then answers 404' })
  @ApiEnvelopedOk(DeleteLinkResponse)
  remove(@Caller() caller: AuthContext, @Param('id') id: string): Promise<DeleteLinkResponse> {
    return this.links.remove(caller, id);
  }
}

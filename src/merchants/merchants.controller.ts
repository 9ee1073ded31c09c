import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { ListMerchantsQuery } from './dto/list-merchants.query';
import { MerchantDetailResponse, MerchantListResponse } from './merchant.response';
import { MerchantsService } from './merchants.service';
import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorCodes } from '../openapi/operation-docs.decorators';

@ApiTags('merchants')
@ApiBearerAuth()
@Controller('merchants')
export class MerchantsController {
  constructor(private readonly merchants: MerchantsService) {}

  @Get()
  @ApiOperation({
    summary: 'The 35 merchants of the knowledge base, ordered by merchantId',
    description:
      'Filtered by network, category, region (a storefront region such as US, or GLOBAL) or ' +
      'a country the merchant ships to; an empty list when none matches.',
  })
  @ApiEnvelopedOk(MerchantListResponse)
  list(@Query() query: ListMerchantsQuery): MerchantListResponse {
    return this.merchants.list(query);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One merchant profile (ids are case-sensitive)',
    description:
      'Its regions with storefront, networks and EPC hints, categories and capabilities, as ' +
      'the knowledge base holds them.',
  })
  @ApiParam({ name: 'id', description: 'A merchantId of GET /merchants', example: 'amazon' })
  @ApiErrorCodes(ErrorCode.MERCHANT_NOT_FOUND)
  @ApiEnvelopedOk(MerchantDetailResponse)
  get(@Param('id') id: string): MerchantDetailResponse {
    return this.merchants.getOrThrow(id);
  }
}

import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { ListMerchantsQuery } from './dto/list-merchants.query';
import { MerchantDetailResponse, MerchantListResponse } from './merchant.response';
import { MerchantsService } from './merchants.service';

@ApiTags('merchants')
@ApiBearerAuth()
@Controller('merchants')
export class MerchantsController {
  constructor(private readonly merchants: MerchantsService) {}

  @Get()
  @ApiOperation({ summary: 'The 35 merchants of the knowledge base, ordered by merchantId' })
  @ApiEnvelopedOk(MerchantListResponse)
  list(@Query() query: ListMerchantsQuery): MerchantListResponse {
    return this.merchants.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One merchant profile (ids are case-sensitive)' })
  @ApiEnvelopedOk(MerchantDetailResponse)
  get(@Param('id') id: string): MerchantDetailResponse {
    return this.merchants.getOrThrow(id);
  }
}

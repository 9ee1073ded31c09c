import { ApiProperty } from '@nestjs/swagger';

/** PaginationMeta [S]. */
export class PaginationMeta {
  @ApiProperty({ minimum: 1 }) page: number;
  @ApiProperty({ minimum: 1 }) limit: number;
  @ApiProperty({ minimum: 0 }) total: number;
  @ApiProperty({ minimum: 0 }) totalPages: number;
  @ApiProperty() hasNextPage: boolean;
  @ApiProperty() hasPrevPage: boolean;
}

export function paginationMeta(page: number, limit: number, total: number): PaginationMeta {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, totalPages, hasNextPage: page < totalPages, hasPrevPage: page > 1 };
}

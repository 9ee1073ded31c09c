import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

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

export const DEFAULT_PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 100;
/**
 * Deepest page served. Pages are an OFFSET, which PostgreSQL walks row by row: past 100,000
 * pages (10 million rows at the largest size) a list should be narrowed by its filters.
 */
const MAX_PAGE = 100_000;

/**
 * A query value that is a plain decimal integer becomes a number; anything else (`1e2`,
 * `0x10`, ` 5`, a repeated parameter) stays as it came, for IsInt to refuse. At most ten
 * digits, so nothing beyond a safe integer ever reaches Number().
 */
const fromDecimalDigits = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^[0-9]{1,10}$/.test(value) ? Number(value) : value;

const pageMessage = `page must be a decimal integer from 1 to ${MAX_PAGE}`;
const limitMessage = `limit must be a decimal integer from 1 to ${MAX_PAGE_SIZE}`;

/** `page` and `limit` of every paginated list ([S]: page >= 1, limit 1 to 100, default 25). */
export class PageQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE, default: 1 })
  @IsOptional()
  @Transform(fromDecimalDigits)
  @IsInt({ message: pageMessage })
  @Min(1, { message: pageMessage })
  @Max(MAX_PAGE, { message: pageMessage })
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @IsOptional()
  @Transform(fromDecimalDigits)
  @IsInt({ message: limitMessage })
  @Min(1, { message: limitMessage })
  @Max(MAX_PAGE_SIZE, { message: limitMessage })
  limit?: number;
}

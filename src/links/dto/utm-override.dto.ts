import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { HasNoControlCharacters } from '../../common/validators/is-https-url';

/** UtmOverride [S]: present values replace the preset's UTM values key by key. */
export class UtmOverrideDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @HasNoControlCharacters()
  utm_source?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @HasNoControlCharacters()
  utm_medium?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @HasNoControlCharacters()
  utm_campaign?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @HasNoControlCharacters()
  utm_term?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @HasNoControlCharacters()
  utm_content?: string;
}

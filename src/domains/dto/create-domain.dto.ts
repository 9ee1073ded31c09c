import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsHttpsUrl } from '../../common/validators/is-https-url';

/** POST /domains: a hostname of the creator's, checked and normalised by the service. */
export class CreateDomainDto {
  @ApiProperty({
    maxLength: 253,
    example: 'links.example.com',
    description:
      'A hostname of yours, without scheme, port or path; any case, internationalised names ' +
      'taken and stored in their punycode form. Not an IP address, not our own redirect host.',
  })
  @IsString()
  @MaxLength(253)
  hostname: string;

  @ApiPropertyOptional({
    format: 'uri',
    maxLength: 4096,
    example: 'https://example.com/',
    description:
      'Where a visitor of an unknown slug on this domain is sent (302); without it they get 404',
  })
  @IsOptional()
  @IsHttpsUrl()
  notFoundUrl?: string;
}

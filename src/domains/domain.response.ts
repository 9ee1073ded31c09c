import { ApiProperty } from '@nestjs/swagger';
import { KEY_ENVIRONMENTS, KeyEnvironment } from '../common/access/auth-context';

/** The DNS record that proves the hostname is the creator's. */
export class DomainVerificationResponse {
  @ApiProperty({ example: '_linkpilot-challenge.links.example.com' }) recordName: string;
  @ApiProperty({ enum: ['TXT'] }) recordType: 'TXT';
  @ApiProperty({ example: 'lp-verify-3f1c9a7e0b2d4c6f8a1e3b5d7c9f0a2b' }) recordValue: string;
}

export class DomainResponse {
  @ApiProperty({ readOnly: true }) id: string;
  @ApiProperty({ example: 'links.example.com', description: 'Lowercase; punycode for IDNs' })
  hostname: string;
  @ApiProperty({ type: String, nullable: true, format: 'uri' }) notFoundUrl: string | null;
  @ApiProperty({ enum: KEY_ENVIRONMENTS }) environment: KeyEnvironment;
  @ApiProperty({ description: 'Links may use the domain, and the edge serves it, once true' })
  verified: boolean;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) verifiedAt: string | null;
  @ApiProperty({ type: DomainVerificationResponse }) verification: DomainVerificationResponse;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  lastCheckedAt: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the last check did not verify the domain',
    example: '_linkpilot-challenge.links.example.com has no TXT record',
  })
  lastCheckError: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class DomainEnvelope {
  @ApiProperty({ type: DomainResponse }) domain: DomainResponse;
}

export class DomainListResponse {
  @ApiProperty({ type: [DomainResponse] }) items: DomainResponse[];
}

export class DeleteDomainResponse {
  @ApiProperty() id: string;
  @ApiProperty() deleted: boolean;
  @ApiProperty({ description: 'Live links that lost the domain and its slug: back on /r/<id>' })
  linksDetached: number;
}

import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, Caller } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorCodes, ApiRequestExamples } from '../openapi/operation-docs.decorators';
import { DeleteDomainResponse, DomainEnvelope, DomainListResponse } from './domain.response';
import { ApiDomainIdParameter, CREATE_DOMAIN_EXAMPLES } from './domains.examples';
import { DomainsService } from './domains.service';
import { CreateDomainDto } from './dto/create-domain.dto';

@ApiTags('domains')
@ApiBearerAuth()
@Controller('domains')
export class DomainsController {
  constructor(private readonly domains: DomainsService) {}

  @Post()
  @ApiOperation({
    summary: 'Add a branded domain (Pro and above); answers the DNS record that verifies it',
    description:
      'Publish the answered `verification` as a TXT record, then call POST /domains/{id}/verify ' +
      '(a job also checks every 5 minutes for 7 days). Once verified, links may take the ' +
      'domain and a `slug`, and are served on `https://<hostname>/<slug>`. The plan sets how ' +
      'many domains an account has per environment (docs/limits.md): 403 ' +
      'PLAN_UPGRADE_REQUIRED or DOMAIN_LIMIT_REACHED. A hostname verified by another ' +
      'account, or already yours, is 409 DOMAIN_TAKEN.',
  })
  @ApiRequestExamples(CreateDomainDto, CREATE_DOMAIN_EXAMPLES)
  @ApiErrorCodes(
    ErrorCode.PLAN_UPGRADE_REQUIRED,
    ErrorCode.DOMAIN_LIMIT_REACHED,
    ErrorCode.DOMAIN_TAKEN,
  )
  @ApiEnvelopedOk(DomainEnvelope, 201)
  create(@Caller() caller: AuthContext, @Body() body: CreateDomainDto): Promise<DomainEnvelope> {
    return this.domains.create(caller, body);
  }

  @Get()
  @ApiOperation({
    summary: "The caller's domains in the key's environment, newest first",
    description: 'Verified or not, each with its verification record and last check.',
  })
  @ApiEnvelopedOk(DomainListResponse)
  list(@Caller() caller: AuthContext): Promise<DomainListResponse> {
    return this.domains.list(caller);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One domain, with its verification record and state',
    description: 'Another account’s domain, or one of the other environment, is 404.',
  })
  @ApiDomainIdParameter()
  @ApiErrorCodes(ErrorCode.DOMAIN_NOT_FOUND)
  @ApiEnvelopedOk(DomainEnvelope)
  get(@Caller() caller: AuthContext, @Param('id') id: string): Promise<DomainEnvelope> {
    return this.domains.get(caller, id);
  }

  @Post(':id/verify')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Look for the TXT record now',
    description:
      'Answers the domain: `verified` true once `_linkpilot-challenge.<hostname>` holds the ' +
      'token, else `lastCheckError` says what was found. A verified domain stays verified. ' +
      'A hostname another account verified first is 409 DOMAIN_TAKEN.',
  })
  @ApiDomainIdParameter()
  @ApiErrorCodes(ErrorCode.DOMAIN_NOT_FOUND, ErrorCode.DOMAIN_TAKEN)
  @ApiEnvelopedOk(DomainEnvelope)
  verify(@Caller() caller: AuthContext, @Param('id') id: string): Promise<DomainEnvelope> {
    return this.domains.verify(caller, id);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete; its links go back to /r/<id>',
    description:
      'The edge stops serving the hostname at once. Links on it keep working on ' +
      '`/r/<id>` and lose their domain and slug; a second DELETE is 404.',
  })
  @ApiDomainIdParameter()
  @ApiErrorCodes(ErrorCode.DOMAIN_NOT_FOUND)
  @ApiEnvelopedOk(DeleteDomainResponse)
  remove(@Caller() caller: AuthContext, @Param('id') id: string): Promise<DeleteDomainResponse> {
    return this.domains.remove(caller, id);
  }
}

import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, Caller } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { AccountResponse } from './account.response';
import { AccountSettingsEnvelope } from './account-settings.response';
import { AccountSettingsService } from './account-settings.service';
import { AccountService } from './account.service';
import { UpdateSettingsDto } from './dto/update-settings.dto';

@ApiTags('account')
@ApiBearerAuth()
@Controller('account')
export class AccountController {
  constructor(
    private readonly account: AccountService,
    private readonly settings: AccountSettingsService,
  ) {}

  @Get()
  @ApiOperation({
    summary: "The caller's plan and click usage this period",
    description:
      'Usage of the key’s environment: a live key the billed live clicks, a test key the ' +
      'sandbox’s test clicks (never billed, never counted against the quota).',
  })
  @ApiEnvelopedOk(AccountResponse)
  getAccount(@Caller() caller: AuthContext): Promise<AccountResponse> {
    return this.account.getAccount(caller);
  }

  @Get('settings')
  @ApiOperation({
    summary: "The creator's settings",
    description: 'Shared by the live and test keys of the creator.',
  })
  @ApiEnvelopedOk(AccountSettingsEnvelope)
  getSettings(@Caller() caller: AuthContext): Promise<AccountSettingsEnvelope> {
    return this.settings.get(caller.creatorId);
  }

  @Patch('settings')
  @ApiOperation({
    summary: "Change the creator's settings",
    description:
      "The fields present change, the others stay; the answer is every setting. `attribution: true` makes `/r/:id` append the network's sub-id parameter with the click's record id to the routed URL of every link whose own `attribution` is null (README: Conversions); running servers apply it within about a second.",
  })
  @ApiBody({
    type: UpdateSettingsDto,
    examples: {
      attributionOn: { summary: 'Send click ids to the networks', value: { attribution: true } },
    },
  })
  @ApiEnvelopedOk(AccountSettingsEnvelope)
  updateSettings(
    @Caller() caller: AuthContext,
    @Body() body: UpdateSettingsDto,
  ): Promise<AccountSettingsEnvelope> {
    return this.settings.update(caller.creatorId, body);
  }
}

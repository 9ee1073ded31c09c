import { ApiProperty } from '@nestjs/swagger';

/** A creator's settings (both environments share them). */
export class AccountSettingsResponse {
  @ApiProperty({
    description:
      'Click ids to the networks for links that do not say otherwise (README: Conversions)',
  })
  attribution: boolean;
}

export class AccountSettingsEnvelope {
  @ApiProperty({ type: AccountSettingsResponse }) settings: AccountSettingsResponse;
}

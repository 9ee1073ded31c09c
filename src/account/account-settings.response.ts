import { ApiProperty } from '@nestjs/swagger';
import { ROUTING_MODES, type RoutingMode } from '../routing/engine/routing-types';

/** A creator's settings (both environments share them). */
export class AccountSettingsResponse {
  @ApiProperty({
    description:
      'Click ids to the networks for links that do not say otherwise (README: Conversions)',
  })
  attribution: boolean;

  @ApiProperty({
    enum: ROUTING_MODES,
    description: "How the creator's links choose a route (docs/routing.md section 10)",
  })
  routingMode: RoutingMode;
}

export class AccountSettingsEnvelope {
  @ApiProperty({ type: AccountSettingsResponse }) settings: AccountSettingsResponse;
}

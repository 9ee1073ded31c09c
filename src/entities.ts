import { CreatorEntity } from './account/creator.entity';
import { ClickEntity } from './analytics/click.entity';
import { ConversionEntity } from './conversions/conversion.entity';
import { PostbackTokenEntity } from './conversions/postback-token.entity';
import { PlanEntity } from './account/plan.entity';
import { ApiKeyEntity } from './auth/api-key.entity';
import { FxRateEntity } from './fx/fx-rate.entity';
import { LinkEntity } from './links/link.entity';
import { MerchantEntity } from './merchants/merchant.entity';
import { NetworkAccountEntity } from './networks/network-account.entity';

/**
 * Every entity, registered once for the app, the CLI and the tests. At the root beside
 * app.module.ts, since it names every feature: `database` stays below the features.
 */
export const ENTITIES = [
  PlanEntity,
  CreatorEntity,
  ApiKeyEntity,
  NetworkAccountEntity,
  MerchantEntity,
  FxRateEntity,
  LinkEntity,
  ClickEntity,
  ConversionEntity,
  PostbackTokenEntity,
];

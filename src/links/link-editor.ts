import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { MerchantProfile } from '../merchants/kb/merchant-profile';
import { isNetworkAvailable } from '../routing/engine';
import { UpdateLinkDto } from './dto/update-link.dto';
import { toNetworkOverride } from './dto/network-override.dto';
import { isForcedPassthrough } from './link-builder.service';
import type { LinkEntity } from './link.entity';

/**
 * Applies a PATCH to a link by the spec's rules: only present fields change, `null` removes
 * the removable ones, routing is never re-run, passthrough needs a reason to go on and cannot
 * go off where the merchant imposes it.
 */
export class LinkEditor {
  constructor(
    private readonly link: LinkEntity,
    private readonly merchant: MerchantProfile | null,
    private readonly nowMs: number,
  ) {}

  apply(changes: UpdateLinkDto): void {
    const present = Object.entries(changes).filter(([, value]) => value !== undefined);
    if (present.length === 0) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, 'Send at least one field to update.', {
        body: ['must contain at least one field to update'],
      });
    }
    const { link } = this;
    if (changes.title !== undefined) link.title = changes.title;
    if (changes.preset !== undefined) link.preset = changes.preset;
    if (changes.category !== undefined) link.category = changes.category;
    if (changes.groupId !== undefined) link.groupId = changes.groupId;
    if (changes.notes !== undefined) link.notes = changes.notes;
    if (changes.forwardQuery !== undefined) link.forwardQuery = changes.forwardQuery;
    if (changes.attribution !== undefined) link.attribution = changes.attribution;
    if (changes.utmOverride !== undefined) {
      link.utmOverride = changes.utmOverride === null ? null : { ...changes.utmOverride };
    }
    if (changes.networkOverride !== undefined) this.applyNetworkOverride(changes.networkOverride);
    this.applyPassthrough(changes.passthrough, changes.passthroughReason);
  }

  private applyNetworkOverride(input: UpdateLinkDto['networkOverride']): void {
    if (input === null || input === undefined) {
      this.link.networkOverride = null;
      return;
    }
    const pin = toNetworkOverride(input);
    const { region } = this.link;
    const isAvailable =
      this.merchant !== null &&
      region !== null &&
      isNetworkAvailable(this.merchant, region, pin.networkId);
    if (!isAvailable) {
      throw new AppError(
        ErrorCode.NETWORK_OVERRIDE_UNAVAILABLE,
        `Network ${pin.networkId} has no positive EPC hint for this merchant in the region the link routes to${region ? ` (${region})` : ''}.`,
      );
    }
    if (pin.expiresAt !== undefined && Date.parse(pin.expiresAt) <= this.nowMs) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, 'The network override has already expired.', {
        'networkOverride.expiresAt': ['must be in the future'],
      });
    }
    this.link.networkOverride = pin;
  }

  private applyPassthrough(enabled: boolean | undefined, reason: string | undefined): void {
    const { link } = this;
    if (enabled === true) {
      if (!link.passthroughEnabled) link.passthroughEnabledAt = new Date(this.nowMs);
      link.passthroughEnabled = true;
      link.passthroughReason = reason ?? link.passthroughReason;
      return;
    }
    if (enabled === false) {
      if (link.merchantId === null) {
        throw new AppError(
          ErrorCode.UNSUPPORTED_MERCHANT,
          'Links to merchants outside the knowledge base are always passthrough.',
        );
      }
      if (isForcedPassthrough(link.routingReason)) {
        throw new AppError(
          ErrorCode.VALIDATION_ERROR,
          'This merchant requires passthrough; it cannot be turned off.',
          { passthrough: ['is imposed by the merchant'] },
        );
      }
      if (reason !== undefined) {
        throw new AppError(
          ErrorCode.VALIDATION_ERROR,
          'passthroughReason needs passthrough true.',
          {
            passthroughReason: ['applies only when passthrough is true'],
          },
        );
      }
      // Routing is not re-evaluated: the decision made at creation is served again.
      link.passthroughEnabled = false;
      link.passthroughReason = null;
      link.passthroughEnabledAt = null;
      return;
    }
    if (reason !== undefined) {
      if (!link.passthroughEnabled) {
        throw new AppError(
          ErrorCode.VALIDATION_ERROR,
          'passthroughReason needs passthrough true.',
          {
            passthroughReason: ['applies only when passthrough is true'],
          },
        );
      }
      link.passthroughReason = reason;
    }
  }
}

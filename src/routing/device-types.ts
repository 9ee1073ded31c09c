import type { DeviceType } from './engine/routing-types';

/** DeviceType [S]. */
export const DEVICE_TYPES: readonly DeviceType[] = ['desktop', 'mobile', 'tablet'];
export type { DeviceType };

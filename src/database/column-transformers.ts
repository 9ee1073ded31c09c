import { ValueTransformer } from 'typeorm';

/** pg returns NUMERIC as a string to keep precision; prices here fit a double. */
export const numericTransformer: ValueTransformer = {
  to: (value: number | null) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

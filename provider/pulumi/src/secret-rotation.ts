// jobhooks' own secret rotation for the resources that carry an hmacSecret (webhooks, operational endpoints): the
// `secretRotation` and `secretOverlapSeconds` inputs, checked by the rotation endpoint's own body schema, and the
// secret a state carries from one step to the next (the API shows a secret once).
import type * as pulumi from '@pulumi/pulumi';
import { outputTime, type RotationOptions, rotationIdempotencyKey } from '@jobhooks/client';
import { RotateSecretBody, type RotatedSecret } from '@jobhooks/client/contract';

export interface RotationInputs {
  /**
   * jobhooks' own (dbt Cloud has no rotation): change it to any new value (e.g. '2026-11') to rotate `hmacSecret`
   * in place. Set at create, or removed, it rotates nothing.
   */
  secretRotation?: string;
  /** jobhooks' own: how long a rotation's replaced secret keeps signing, 0 to 604800 s; a day when omitted. */
  secretOverlapSeconds?: number;
}

/** The secret as this stack knows it, and its overlap. */
export interface Secret {
  /** Known when this stack created the resource or rotated its secret: the API shows a secret once. */
  hmacSecret: string;
  /** While a rotation's overlap lasts, when the replaced secret stops signing (RFC 3339, UTC); null otherwise. */
  previousSecretExpiresAt: string | null;
}

export const isSet = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;
export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** secretOverlapSeconds by the rotation endpoint's own body schema, in its words. */
export function overlapProblems(overlap: unknown): pulumi.dynamic.CheckFailure[] {
  if (!isSet(overlap)) return [];
  const parsed = RotateSecretBody.safeParse({ overlap_seconds: overlap });
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({ property: 'secretOverlapSeconds', reason: issue.message }));
}

/** Whether an update rotates the secret: secretRotation set to a value other than the old one (from unset too). */
export const rotates = (
  olds: RotationInputs,
  news: RotationInputs,
): news is RotationInputs & { secretRotation: string } =>
  isSet(news.secretRotation) && !same(olds.secretRotation ?? null, news.secretRotation);

/** The secret a state holds, its time in RFC 3339 (a state an earlier version wrote may hold microsecond digits). */
export const carriedSecret = (state: Partial<Secret> | undefined): Secret => ({
  hmacSecret: state?.hmacSecret ?? '',
  previousSecretExpiresAt: outputTime(state?.previousSecretExpiresAt),
});

/**
 * Rotates through the resource's own rotation endpoint: the new secret, and when the replaced one stops signing.
 * Under the key of this trigger value and the secret the state holds (`replaced`): an `up` run again after one whose
 * answer was lost gets that rotation's secret.
 */
export async function rotatedSecret(
  api: { rotateSecret(id: string, overlapSeconds?: number, how?: RotationOptions): Promise<RotatedSecret> },
  id: string,
  news: RotationInputs & { secretRotation: string },
  replaced: Secret,
): Promise<Secret> {
  const rotated = await api.rotateSecret(id, news.secretOverlapSeconds ?? undefined, {
    idempotencyKey: rotationIdempotencyKey(id, news.secretRotation, replaced.hmacSecret),
  });
  return { hmacSecret: rotated.hmac_secret, previousSecretExpiresAt: outputTime(rotated.previous_secret_expires_at) };
}

// The file format: what a webhooks file may say, as one zod schema built on the API contract's create body, so
// a file is checked by the same rules the service applies. The JSON Schema editors read is generated from it.
import {
  CreateWebhookBody,
  MARKER_IDENTIFIER,
  MARKER_IDENTIFIER_RULE,
  OperationalEndpointBody,
} from '@jobhooks/client/contract';
import { z } from 'zod';

/** An identifier or a namespace: it goes into the webhook's name on the server, between `[[` and `]]`. */
export const IDENTIFIER_PATTERN = new RegExp(`^${MARKER_IDENTIFIER}$`);
const IDENTIFIER_RULE = MARKER_IDENTIFIER_RULE;

export const Identifier = z.string().regex(IDENTIFIER_PATTERN, `must be ${IDENTIFIER_RULE}`);

/** One webhook as a file declares it: the API's create body, without `id`, refusing unknown fields (typos). */
export const DeclaredWebhook = CreateWebhookBody.omit({ id: true }).strict();
/** A declared webhook with the API's defaults applied. */
export type DeclaredValues = z.output<typeof DeclaredWebhook>;

export const WEBHOOK_FIELDS = Object.keys(DeclaredWebhook.shape) as Array<keyof DeclaredValues>;

/** One operational endpoint as a file declares it: the API's body, refusing unknown fields. */
export const DeclaredOperationalEndpoint = OperationalEndpointBody.strict();
/** A declared operational endpoint with the API's defaults applied. */
export type DeclaredEndpointValues = z.output<typeof DeclaredOperationalEndpoint>;

export const ENDPOINT_FIELDS = Object.keys(DeclaredOperationalEndpoint.shape) as Array<keyof DeclaredEndpointValues>;

/** The file's maps of declared things, by the key that holds them. */
export const DECLARED_MAPS = ['webhooks', 'operational_endpoints'] as const;

export const WebhooksFile = z
  .strictObject({
    namespace: Identifier.optional().meta({
      description:
        'Scopes what these files manage: only webhooks marked with this namespace are changed or deleted. ' +
        `Identifiers and namespaces are ${IDENTIFIER_RULE}.`,
    }),
    webhooks: z.record(Identifier, DeclaredWebhook).optional().meta({
      description: 'The webhooks, by identifier. The identifier links an entry to its webhook on the server.',
    }),
    operational_endpoints: z.record(Identifier, DeclaredOperationalEndpoint).optional().meta({
      description:
        "The account's operational endpoints, by identifier (their own identifiers, apart from the webhooks').",
    }),
  })
  .meta({
    title: 'jobhooks webhooks as code',
    description: 'Webhooks declared for jobhooks-as-code (validate, plan, apply, import).',
  });
export type WebhooksFile = z.output<typeof WebhooksFile>;

/**
 * True for a file (a map) with neither `webhooks` nor `operational_endpoints`: a mistake (a typo of the key, most
 * likely) rather than "manage nothing", which applied would delete everything managed. Checked before the schema,
 * whose two maps are each optional.
 */
export function declaresNothing(file: unknown): boolean {
  if (typeof file !== 'object' || file === null || Array.isArray(file)) return false;
  return DECLARED_MAPS.every((key) => !(key in file));
}

/**
 * Top-level keys starting with `x-` are the file's own (as in Compose files): a place for YAML anchors shared by
 * several webhooks. They are dropped before the file is checked.
 */
export const EXTENSION_KEY = /^x-/;

export function withoutExtensionKeys(file: unknown): unknown {
  if (typeof file !== 'object' || file === null || Array.isArray(file)) return file;
  return Object.fromEntries(Object.entries(file).filter(([key]) => !EXTENSION_KEY.test(key)));
}

/** The JSON Schema of a webhooks file, for editors (yaml-language-server) and other tools. */
export function webhooksFileJsonSchema(): Record<string, unknown> {
  // `input`: what a file may say, before the defaults are applied. Refinements (no repeated event type, ...) are
  // not expressible in JSON Schema: `validate` checks them.
  const schema = z.toJSONSchema(WebhooksFile, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, patternProperties: { [EXTENSION_KEY.source]: {} } };
}

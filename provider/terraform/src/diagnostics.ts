// Terraform diagnostics: what `terraform plan/apply` prints as "Error:" or "Warning:", optionally pointing
// at the attribute in the configuration. API errors become diagnostics carrying the server's own message.
import { ApiError } from '@jobhooks/client';

export interface Diagnostic {
  severity: 'ERROR' | 'WARNING';
  summary: string;
  detail: string;
  attribute?: { steps: Array<{ attribute_name: string }> };
}

export function errorAt(attribute: string | null, summary: string, detail: string): Diagnostic {
  return {
    severity: 'ERROR',
    summary,
    detail,
    ...(attribute === null ? {} : { attribute: { steps: [{ attribute_name: attribute }] } }),
  };
}

export function warning(summary: string, detail: string): Diagnostic {
  return { severity: 'WARNING', summary, detail };
}

/**
 * An error from the API client as diagnostics: the server's message and status, plus one diagnostic per
 * field error pointing at that attribute (the API's field names are the Terraform attribute names).
 */
export function diagnosticsOf(error: unknown, summary: string): Diagnostic[] {
  if (!(error instanceof ApiError))
    return [errorAt(null, summary, error instanceof Error ? error.message : String(error))];
  const detail = `${error.userMessage} (HTTP ${error.status})`;
  const fields = Object.entries(error.fieldErrors);
  if (fields.length === 0) return [errorAt(null, summary, detail)];
  return fields.map(([field, messages]) => errorAt(field, summary, `${detail}: ${messages.join('; ')}`));
}

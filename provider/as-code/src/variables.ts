// `${VAR}` in the files, replaced from the environment so that one file serves several environments.
// Replaced in the parsed values (never in the YAML text), so a value cannot change the file's structure.
import { parse, Scalar } from 'yaml';

// `$${` first, so that an escaped `${` is consumed alone and a placeholder after it still counts.
const PLACEHOLDER = /\$\$\{|\$\{([^}]*)(\})?/g;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WHOLE_PLACEHOLDER = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

export type Substituted = { value: string | number | boolean } | { problem: string };

/**
 * The text with every `${NAME}` replaced (`$${` is a literal `${`). An unquoted value that is exactly one
 * `${NAME}` takes the variable as YAML would read it written there, so `- ${NIGHTLY_JOB_ID}` gives a number and
 * `active: ${ALERTS_ON}` a boolean; quoted values and longer texts stay text.
 */
export function substituteVariables(text: string, scalarType: Scalar['type'], env: NodeJS.ProcessEnv): Substituted {
  if (!text.includes('${')) return { value: text };
  const problems: string[] = [];
  const replaced = text.replace(PLACEHOLDER, (whole, name: string | undefined, closed?: string) => {
    if (name === undefined) return '${';
    if (closed === undefined || !VARIABLE_NAME.test(name)) {
      problems.push(`"${whole}" is not a variable: write \${NAME} (letters, digits and _), or $\${ for a literal \${`);
      return whole;
    }
    const value = env[name];
    if (value === undefined) problems.push(`the environment variable ${name} is not set`);
    return value ?? '';
  });
  if (problems.length > 0) return { problem: problems.join('; ') };
  if (scalarType === Scalar.PLAIN && WHOLE_PLACEHOLDER.test(text)) return { value: typedScalar(replaced) };
  return { value: replaced };
}

function typedScalar(text: string): string | number | boolean {
  try {
    const value: unknown = parse(text);
    return typeof value === 'number' || typeof value === 'boolean' ? value : text;
  } catch {
    return text;
  }
}

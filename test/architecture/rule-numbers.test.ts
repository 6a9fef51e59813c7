// Text that states a delivery rule or a limit (in the API reference, the UI, error messages, IaC schemas) takes the
// number from the rule's constant (contract/delivery-rules.ts, contract/limits.ts), so a changed rule cannot leave a
// sentence behind that says otherwise.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const SOURCES = ['service/src', ...readdirSync(join(ROOT, 'provider')).map((name) => `provider/${name}/src`)].filter(
  (dir) => existsSync(join(ROOT, dir)),
);
/** An amount of time or a count in the form a rule states it: "7 days", "24 hours", "10 s", "1,000". */
const STATED_AMOUNT = /\b\d[\d,]*(?:\.\d+)? ?(?:days?|hours?|min|minutes?|s|seconds?)\b|\b\d{1,3}(?:,\d{3})+\b/;

function sourceFiles(dir: string): string[] {
  const path = join(ROOT, dir);
  return (
    readdirSync(path, { withFileTypes: true, recursive: true })
      // Migrations are history: what they once said stays as it was.
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.d\.ts$|^migrations\.ts$/.test(entry.name))
      .map((entry) => join(entry.parentPath, entry.name))
  );
}

/** The text of every string literal and template piece of a file, comments left out. */
function literalTexts(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const texts: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) {
      texts.push(node.text);
    }
    node.forEachChild(visit);
  };
  visit(source);
  return texts;
}

test('no text in the code types in the number of a rule: it comes from the constant', () => {
  const typedIn = SOURCES.flatMap(sourceFiles).flatMap((file) =>
    literalTexts(file)
      .filter((text) => STATED_AMOUNT.test(text))
      .map((text) => `${relative(ROOT, file)}: ${JSON.stringify(text.slice(0, 120))}`),
  );
  expect(typedIn).toEqual([]);
});

test('the check sees a number typed into a sentence, and not one that comes from a constant', () => {
  const stated = (text: string) => STATED_AMOUNT.test(text);
  expect(stated('Deliveries older than 7 days are gone.')).toBe(true);
  expect(stated('its endpoint failed 1,000 deliveries in a row')).toBe(true);
  expect(stated('a 2xx later than 10 s')).toBe(true);
  expect(stated('Deliveries older than ')).toBe(false);
  expect(stated('answered 410 Gone')).toBe(false);
});

// cdktf's and CDK Terrain's Testing.app() and Testing.fullSynth() each make a folder in the system's temporary folder
// and never remove it, so every run of the suite left dozens behind. A test file's apps write under one folder of its
// own instead, removed with whatever fullSynth made once its tests are done.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SynthFolders {
  /** A new empty folder for one app's output: `Testing.app({ outdir: folders.outdir() })`. */
  outdir(): string;
  /** A folder made elsewhere (what `Testing.fullSynth` returns), removed with the others; returns it. */
  adopt(folder: string): string;
}

/** Registers the afterAll that removes the folders; call it at the top of a test file. */
export function useSynthFolders(name: string): SynthFolders {
  let parent: string | null = null;
  let made = 0;
  const adopted: string[] = [];
  afterAll(() => {
    for (const folder of [...adopted, ...(parent === null ? [] : [parent])])
      rmSync(folder, { recursive: true, force: true });
  });
  return {
    outdir() {
      parent ??= mkdtempSync(join(tmpdir(), `jobhooks-${name}-`));
      const folder = join(parent, String((made += 1)));
      mkdirSync(folder);
      return folder;
    },
    adopt(folder) {
      adopted.push(folder);
      return folder;
    },
  };
}

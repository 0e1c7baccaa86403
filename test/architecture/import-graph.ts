/**
 * The import graph of the runtime's own sources (`src/`, `machines/`), read with TypeScript's
 * pre-processor: it sees every `import`, `export … from` and `import()` (type-only ones too, which
 * matter for layering even when they vanish from the build) and skips comments, so an `@example`
 * never counts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every `.ts` file under `dir` (relative to the root), recursively. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string): void => {
    for (const name of readdirSync(abs)) {
      const path = join(abs, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) out.push(relative(ROOT, path));
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

/** The specifiers `file` imports, exactly as written. */
export function importSpecifiers(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map((ref) => ref.fileName);
}

/** A relative specifier of `file` as the root-relative `.ts` file it names; `null` for a package. */
export function resolveRelative(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  return relative(ROOT, resolve(ROOT, dirname(file), specifier.replace(/\.js$/, '.ts')));
}

/** The graph: each file to the root-relative files it imports (relative imports only). */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importSpecifiers(file)
      .map((specifier) => resolveRelative(file, specifier))
      .filter((target): target is string => target !== null);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle found by a depth-first walk, each as the files around it (first repeated last). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string): void => {
    if (onPath.has(file)) {
      found.push([...path.slice(path.indexOf(file)), file]);
      return;
    }
    if (done.has(file)) return;
    onPath.add(file);
    path.push(file);
    for (const target of graph.get(file) ?? []) visit(target);
    path.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) visit(file);
  return found;
}

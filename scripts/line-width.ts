/**
 * `bun scripts/line-width.ts [folder]` (in `bun run check`): fails on a line of the folder's TypeScript (src/ when
 * none is given) longer than biome's lineWidth. Biome keeps code to that width but breaks no string and no comment,
 * so a long message or comment would stay long. Files biome leaves alone (`!` in its includes: generated ones) are
 * left alone here too. Widths are in characters, as biome counts them, not bytes.
 */
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..");
const biome = await Bun.file(join(ROOT, "biome.json")).json();
const width: number = biome.formatter.lineWidth;
const skipped: Bun.Glob[] = (biome.files.includes as string[]).filter((p) => p.startsWith("!")).map((p) => new Bun.Glob(p.slice(1)));

const folder = process.argv[2] ?? "src";
const long: string[] = [];
for (const file of new Bun.Glob("**/*.ts").scanSync({ cwd: folder, absolute: true })) {
  if (skipped.some((g) => g.match(relative(ROOT, file)))) continue;
  const lines = (await Bun.file(file).text()).split("\n");
  lines.forEach((line, i) => {
    const n = [...line].length;
    if (n > width) long.push(`${relative(process.cwd(), file)}:${i + 1}: ${n} characters`);
  });
}
if (long.length) {
  console.error(`${long.join("\n")}\nLines longer than ${width} (biome.json lineWidth): wrap the comment, or split the string with + (its output unchanged).`);
  process.exit(1);
}

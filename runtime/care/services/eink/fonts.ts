/**
 * The fonts the renderer ships with: Noto Sans for Latin and one Noto family per Indian
 * script of the spec's languages, taken from npm font packages (TTF files), in regular
 * and bold. Every family is registered under a `careflow ` alias so a system font of the
 * same name can never change how a card looks from one machine to the next.
 */
import fs from "node:fs";
import path from "node:path";
import { canvasLib } from "./native-libs";

interface FontPackage {
  pkg: string;
  /** File name stem inside the package, e.g. `NotoSansTamil`. */
  stem: string;
  family: string;
  script: string;
}

const PACKAGES: readonly FontPackage[] = [
  { pkg: "@expo-google-fonts/noto-sans", stem: "NotoSans", family: "Noto Sans", script: "Latin" },
  { pkg: "@expo-google-fonts/noto-sans-tamil", stem: "NotoSansTamil", family: "Noto Sans Tamil", script: "Tamil" },
  { pkg: "@expo-google-fonts/noto-sans-devanagari", stem: "NotoSansDevanagari", family: "Noto Sans Devanagari", script: "Devanagari" },
  { pkg: "@expo-google-fonts/noto-sans-bengali", stem: "NotoSansBengali", family: "Noto Sans Bengali", script: "Bengali" },
  { pkg: "@expo-google-fonts/noto-sans-telugu", stem: "NotoSansTelugu", family: "Noto Sans Telugu", script: "Telugu" },
  { pkg: "@expo-google-fonts/noto-sans-kannada", stem: "NotoSansKannada", family: "Noto Sans Kannada", script: "Kannada" },
  { pkg: "@expo-google-fonts/noto-sans-malayalam", stem: "NotoSansMalayalam", family: "Noto Sans Malayalam", script: "Malayalam" },
  { pkg: "@expo-google-fonts/noto-sans-gujarati", stem: "NotoSansGujarati", family: "Noto Sans Gujarati", script: "Gujarati" },
  { pkg: "@expo-google-fonts/noto-sans-gurmukhi", stem: "NotoSansGurmukhi", family: "Noto Sans Gurmukhi", script: "Gurmukhi" },
];

const WEIGHTS = [
  { weight: 400, dir: "400Regular" },
  { weight: 700, dir: "700Bold" },
] as const;

export interface FontInfo {
  /** What a template names in `font_filename`. */
  filename: string;
  family: string;
  weight: 400 | 700;
  script: string;
  /** Whether the file was found and registered. */
  available: boolean;
}

interface FontEntry extends FontInfo {
  file: string;
  alias: string;
}

export const DEFAULT_FONT_FILENAME = "NotoSans_400Regular.ttf";
const ALIAS_PREFIX = "careflow ";

function packageDir(pkg: string): string | null {
  try {
    return path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    return null;
  }
}

let catalog: FontEntry[] | undefined;

/** Finds and registers the fonts once per process. */
function loadCatalog(): FontEntry[] {
  if (catalog) return catalog;
  const entries: FontEntry[] = [];
  for (const p of PACKAGES) {
    const dir = packageDir(p.pkg);
    for (const w of WEIGHTS) {
      const filename = `${p.stem}_${w.dir}.ttf`;
      const file = dir ? path.join(dir, w.dir, filename) : "";
      const alias = ALIAS_PREFIX + p.family;
      const available = file !== "" && fs.existsSync(file) && Boolean(canvasLib().GlobalFonts.registerFromPath(file, alias));
      entries.push({ filename, family: p.family, weight: w.weight, script: p.script, available, file, alias });
    }
  }
  catalog = entries;
  return entries;
}

/**
 * The installed font files, without registering them with the renderer: the web app serves
 * the same files to the tablet (runtime/app/webapp), so it draws every script the cards do.
 */
export function fontFiles(): Array<{ filename: string; file: string; family: string; weight: 400 | 700 }> {
  const files: Array<{ filename: string; file: string; family: string; weight: 400 | 700 }> = [];
  for (const p of PACKAGES) {
    const dir = packageDir(p.pkg);
    for (const w of WEIGHTS) {
      const filename = `${p.stem}_${w.dir}.ttf`;
      const file = dir ? path.join(dir, w.dir, filename) : "";
      if (file && fs.existsSync(file)) files.push({ filename, file, family: p.family, weight: w.weight });
    }
  }
  return files;
}

export function listFonts(): FontInfo[] {
  return loadCatalog().map(({ filename, family, weight, script, available }) => ({ filename, family, weight, script, available }));
}

export const isKnownFont = (filename: string): boolean => loadCatalog().some((f) => f.filename === filename && f.available);

/**
 * A CSS font shorthand for `size`: the chosen file's family first, then every other
 * script family as fallback, so a Tamil word inside an English message still draws.
 */
export function fontShorthand(filename: string | null | undefined, sizePx: number): string {
  return fontStack(filename ?? DEFAULT_FONT_FILENAME).replace("{size}", String(sizePx));
}

const stacks = new Map<string, string>();

/** The shorthand with a `{size}` placeholder, built once per font file. */
function fontStack(filename: string): string {
  const cached = stacks.get(filename);
  if (cached) return cached;
  const all = loadCatalog().filter((f) => f.available);
  const chosen = all.find((f) => f.filename === filename) ?? all.find((f) => f.filename === DEFAULT_FONT_FILENAME);
  const families = [...new Set([chosen?.alias, ...all.map((f) => f.alias)].filter((a): a is string => !!a))];
  const weight = chosen?.weight === 700 ? "bold " : "";
  const stack = `${weight}{size}px ${families.map((f) => `"${f}"`).join(", ")}`;
  stacks.set(filename, stack);
  return stack;
}

/**
 * The message catalogs (issue 49): every catalog says everything the English one says, and
 * nothing it does not (a plural in each of its own language's plural forms), with the same
 * placeholders; a tag's messages fall back along i18next's chain to the household's language.
 */
import assert from "node:assert/strict";
import {
  catalog,
  catalogChain,
  catalogLanguages,
  messagesFor,
  shippedLanguages,
  translate,
  SOURCE_LANGUAGE,
  type Messages,
} from "../../../../runtime/platform/i18n/catalogs";
import { canonicalTag } from "../../../../runtime/platform/i18n/language-tag";

const PLURAL = /_(zero|one|two|few|many|other)$/;

/** Flat `a.b.c` → text. */
function flat(m: Messages, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(m)) {
    if (typeof v === "string") out.set(prefix + k, v);
    else for (const [kk, vv] of flat(v, `${prefix}${k}.`)) out.set(kk, vv);
  }
  return out;
}
const placeholders = (text: string): string[] => [...text.matchAll(/\{\{\s*(\w+)/g)].map((m) => m[1]).sort();

/** Base key → the placeholders it uses; a plural key counts once, under its base. */
function shape(m: Messages): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of flat(m))
    out.set(k.replace(PLURAL, ""), [...new Set([...(out.get(k.replace(PLURAL, ""))?.split(",") ?? []), ...placeholders(v)])].filter(Boolean).sort().join(","));
  return out;
}

/** What a catalog lacks or adds against English, and the keys whose placeholders differ. */
function keyProblems(en: Messages, other: Messages): { missing: string[]; extra: string[]; placeholders: string[] } {
  const want = shape(en);
  const got = shape(other);
  return {
    missing: [...want.keys()].filter((k) => !got.has(k)),
    extra: [...got.keys()].filter((k) => !want.has(k)),
    placeholders: [...want].filter(([k, ph]) => got.has(k) && got.get(k) !== ph).map(([k]) => k),
  };
}

/** `m` without the key at `a.b.c`. */
function without(m: Messages, dotted: string): Messages {
  const [head, ...rest] = dotted.split(".");
  const out = { ...m };
  if (rest.length === 0) delete out[head!];
  else out[head!] = without(m[head!] as Messages, rest.join("."));
  return out;
}

describe("i18n: message catalogs", () => {
  const en = catalog(SOURCE_LANGUAGE)!;

  it("the check itself: a catalog missing a key English has, having one it lacks, or dropping a placeholder is caught", () => {
    const de = catalog("de")!;
    assert.deepEqual(keyProblems(en, de), { missing: [], extra: [], placeholders: [] });
    assert.deepEqual(keyProblems(en, without(de, "chat.reply_resolves")).missing, ["chat.reply_resolves"]);
    assert.deepEqual(
      keyProblems(en, without(de, "chat.toast")).missing.sort(),
      Object.keys((en.chat as Messages).toast as Messages)
        .map((k) => `chat.toast.${k}`)
        .sort(),
    );
    assert.deepEqual(keyProblems(without(en, "card.put_away"), de).extra, ["card.put_away"]);
    const dropped = { ...de, prompt: { ...(de.prompt as Messages), you_answered: "Ihre Antwort" } };
    assert.deepEqual(keyProblems(en, dropped).placeholders, ["prompt.you_answered"]);
  });

  it("ship English, German and Hindi, each file named by its canonical BCP 47 tag", () => {
    for (const lng of ["en", "de", "hi"]) assert.ok(catalogLanguages().includes(lng), `${lng}.json is shipped`);
    for (const lng of catalogLanguages()) assert.equal(canonicalTag(lng), lng, `${lng}.json: the file name is a canonical tag`);
    assert.deepEqual(
      shippedLanguages().filter((l) => ["de", "hi"].includes(l.language)),
      [
        { language: "de", name: "Deutsch" },
        { language: "hi", name: "हिन्दी" },
      ],
    );
  });

  for (const lng of catalogLanguages().filter((l) => l !== SOURCE_LANGUAGE)) {
    it(`${lng}: has every key English has, no other, with the same placeholders`, () => {
      const { missing, extra, placeholders } = keyProblems(en, catalog(lng)!);
      assert.deepEqual(missing, [], `${lng}.json misses keys English has`);
      assert.deepEqual(extra, [], `${lng}.json has keys English lacks`);
      assert.deepEqual(placeholders, [], `${lng}.json: these keys' placeholders differ from English`);
    });

    it(`${lng}: every plural has each form its language's plural rules use, and no untranslated copy of an English sentence`, () => {
      const forms = new Intl.PluralRules(lng).resolvedOptions().pluralCategories;
      const keys = [...flat(catalog(lng)!).keys()];
      for (const base of new Set(keys.filter((k) => PLURAL.test(k)).map((k) => k.replace(PLURAL, ""))))
        for (const form of forms) assert.ok(keys.includes(`${base}_${form}`), `${lng}.json: ${base}_${form}`);
      const english = new Set([...flat(en)].filter(([k]) => k !== "language.name").map(([, v]) => v));
      const copied = [...flat(catalog(lng)!)].filter(([, v]) => english.has(v)).map(([k]) => k);
      assert.deepEqual(copied, [], `${lng}.json still says these in English`);
    });
  }

  it("counts in each language's plural forms", () => {
    assert.equal(translate("en", "prompt.seconds_left", { count: 1 }), "1 second left");
    assert.equal(translate("en", "prompt.seconds_left", { count: 12 }), "12 seconds left");
    assert.equal(translate("de", "prompt.seconds_left", { count: 1 }), "Noch 1 Sekunde");
    assert.equal(translate("de", "prompt.seconds_left", { count: 0 }), "Noch 0 Sekunden");
    assert.equal(translate("hi", "prompt.seconds_left", { count: 5 }), "5 सेकंड बाकी");
    assert.equal(translate("de", "prompt.you_answered", { button: "<Ja & gut>" }), "Ihre Antwort: <Ja & gut>", "text nodes, not HTML: nothing escaped");
  });

  it("a regional tag reads its language's catalog; a language with none, the household's, then English", () => {
    assert.deepEqual(catalogChain("de-AT"), ["de", "en"]);
    assert.deepEqual(catalogChain("fr", "hi"), ["hi", "en"]);
    assert.equal((messagesFor("de-AT").prompt as Messages).title, "Eine Frage an Sie");
    assert.equal((messagesFor("fr", "hi").prompt as Messages).title, "आपसे एक सवाल");
    assert.equal((messagesFor("fr").prompt as Messages).title, "Question for You");
    assert.equal(translate("de-CH", "card.put_away"), "Weglegen");
  });
});

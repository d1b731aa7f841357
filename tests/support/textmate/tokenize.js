// Tokenize texts with a TextMate grammar the way VS Code does (vscode-textmate on the Oniguruma
// regex engine), for tests/frontends/test_editors.py.
//
//   node tokenize.js GRAMMAR.tmLanguage.json < texts.json > tokens.json
//
// Reads a JSON list of texts; writes, for each text, a list of lines, each a list of tokens
// [start, end, [scope, ...]] (columns in UTF-16 code units, scopes outermost first).
"use strict";

const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

async function main() {
  const grammarPath = path.resolve(process.argv[2]);
  const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm")).buffer;
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async () => vsctm.parseRawGrammar(fs.readFileSync(grammarPath, "utf8"), grammarPath),
  });
  const raw = JSON.parse(fs.readFileSync(grammarPath, "utf8"));
  const grammar = await registry.loadGrammar(raw.scopeName);
  const texts = JSON.parse(fs.readFileSync(0, "utf8"));
  const result = texts.map((text) => {
    let state = vsctm.INITIAL;
    return text.split(/\r?\n/).map((line) => {
      const { tokens, ruleStack } = grammar.tokenizeLine(line, state);
      state = ruleStack;
      return tokens.map((t) => [t.startIndex, Math.min(t.endIndex, line.length), t.scopes]);
    });
  });
  process.stdout.write(JSON.stringify(result));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

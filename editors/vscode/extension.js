// DG for VS Code: highlighting and indentation come from package.json's contributions alone; this
// file only starts DG's language server, `dg lsp`, when the installed DG has one.
//
// Whether it has one is asked of `dg lsp --help`: a DG with the server prints its usage
// ("usage: dg lsp ..."), an older DG prints the general usage or an error. Without a server (or
// without `dg` at all) the extension says so in its output channel and does nothing else.
"use strict";

const { execFile } = require("child_process");
const vscode = require("vscode");

let client;

// Calls back with true when `command lsp --help` answers as a DG with a language server does.
function hasLanguageServer(command, callback) {
  execFile(command, ["lsp", "--help"], { timeout: 20000, windowsHide: true }, (error, stdout) => {
    callback(!error && /^usage: dg lsp\b/m.test(stdout));
  });
}

function activate(context) {
  const settings = vscode.workspace.getConfiguration("dg");
  const command = settings.get("path") || "dg";
  const log = vscode.window.createOutputChannel("DG");
  context.subscriptions.push(log);
  if (!settings.get("languageServer")) {
    return;
  }
  hasLanguageServer(command, (found) => {
    if (!found) {
      log.appendLine(`\`${command} lsp\` is not available: highlighting only (set dg.path to DG's \`dg\` command).`);
      return;
    }
    // vscode-languageclient is this extension's one dependency (`npm install` in this folder).
    const { LanguageClient, TransportKind } = require("vscode-languageclient/node");
    client = new LanguageClient(
      "dg",
      "DG language server",
      { command, args: ["lsp"], transport: TransportKind.stdio },
      { documentSelector: [{ language: "dg" }], outputChannel: log },
    );
    client.start().catch((error) => log.appendLine(`DG language server did not start: ${error}`));
  });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, hasLanguageServer };

// Starts `rules lsp` (the rules-dsl language server, over stdio) for .rules files.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("rules.server");
  const server = {
    command: config.get("command", "rules"),
    args: config.get("args", ["lsp"]),
    options: { env: Object.assign({}, process.env, config.get("env", {})) },
  };
  client = new LanguageClient("rules", "Rules DSL", server, {
    documentSelector: [{ scheme: "file", language: "rules" }],
  });
  client.start();
  context.subscriptions.push(client);
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

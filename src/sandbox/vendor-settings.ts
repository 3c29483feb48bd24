/** The `vendor` section of a bridge config that points at a running sandbox. */
export function vendorSettings(sandbox: { urls: { read: string; mail: string; graph: string }; apiKey: string }) {
  return {
    readUrl: sandbox.urls.read,
    mailUrl: sandbox.urls.mail,
    graphUrl: sandbox.urls.graph,
    apiKey: sandbox.apiKey,
  };
}

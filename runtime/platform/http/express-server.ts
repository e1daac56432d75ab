/**
 * The HTTP server for an Express app, its requests and responses made as Express's own
 * from the start.
 *
 * Express gives every request and response its methods by swapping their prototype
 * (`Object.setPrototypeOf` in its init middleware). V8 then gives each object a new hidden
 * class, and every later access to them (Express's, Node's http internals', ours) runs on
 * slow, megamorphic paths: measured, that was about two thirds of Express's own cost per
 * request (issue 29). Node lets a server construct its requests and responses with given
 * functions: built with the app's prototypes, the swap is a no-op (V8 skips setting the
 * prototype an object already has). A sub-app (Node-RED's editor) still swaps, only for
 * its own requests.
 */
import http from "node:http";
import type { Express } from "express";
import { toOriginForm } from "./request-target";

export function createExpressServer(app: Express): http.Server {
  function ExpressRequest(this: http.IncomingMessage, socket: import("node:net").Socket): void {
    http.IncomingMessage.call(this, socket);
  }
  ExpressRequest.prototype = app.request;
  function ExpressResponse(this: http.ServerResponse, req: http.IncomingMessage, options: unknown): void {
    (http.ServerResponse as unknown as (this: http.ServerResponse, req: http.IncomingMessage, options: unknown) => void).call(this, req, options);
  }
  ExpressResponse.prototype = app.response;
  const server = http.createServer(
    {
      IncomingMessage: ExpressRequest as unknown as typeof http.IncomingMessage,
      ServerResponse: ExpressResponse as unknown as typeof http.ServerResponse,
    },
    app,
  );
  // Before the app: Express's router keeps a target's scheme and host aside when it starts
  // and would re-prefix them, so the target is rewritten before it starts (issue 51 item 15).
  server.prependListener("request", toOriginForm);
  return server;
}

/**
 * The `node:http` fast path: the two operations that carry almost all of a
 * solver's traffic are answered before a request enters the Effect runtime.
 *
 * - `GET`/`HEAD /api/v6/solver-feed`: the prepared bytes of the filtered view (or
 *   its cached compressed form), or a 304 after a header comparison.
 * - `GET`/`HEAD /api/v6/solver-feed/events`: the stream is handed to the
 *   server's broadcaster, which writes each publication's one frame to the socket
 *   (no fiber, no queue per subscriber), compressed with zstd or gzip when the
 *   client accepts it (`StreamEncoding`: each frame compressed once for all).
 *
 * Why: the generic request path (router, schema decoding of parameters,
 * middleware, one fiber per request) costs several times the CPU of `node:http`
 * for a response whose bytes are already prepared, and a fiber and a queue per
 * idle subscriber cost more memory than the socket. Both operations stay
 * declared in the contract (`@svc/protocol` Api, annotated `FastPath`) and keep
 * their Effect handlers: a request the fast path does not take (an unknown or
 * repeated query parameter, an invalid filter, a query on the stream) goes to
 * them, and the answers of both paths are built by the same functions
 * (`FeedServing`, `Broadcaster`, `Http`), so they are identical.
 *
 * The fast path is installed through {@link Slot}: a server built with
 * {@link makeServer} runs it; an app served by another `HttpServer` simply has no
 * fast path.
 *
 * @since 0.1.0
 */
import { Publisher } from "@svc/core"
import * as Api from "@svc/protocol/Api"
import { Context, Effect, Layer, Result, type Scope } from "effect"
import type { HttpServerResponse } from "effect/http"
import { HttpApi } from "effect/http-api"
import { type IncomingMessage, Server, type ServerOptions, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import * as AggregatorErrors from "./AggregatorErrors.ts"
import type * as Broadcaster from "./Broadcaster.ts"
import type * as ClientAddress from "./ClientAddress.ts"
import type * as Connections from "./Connections.ts"
import type { RequestIds } from "./Dispatch.ts"
import type * as FeedBudget from "./FeedBudget.ts"
import type * as FeedServing from "./FeedServing.ts"
import * as FeedHandlers from "./handlers/Feed.ts"
import * as Http from "./Http.ts"
import type * as HttpMetrics from "./HttpMetrics.ts"
import type * as SocketQueues from "./SocketQueues.ts"
import * as SolverErrors from "./SolverErrors.ts"
import * as StreamEncoding from "./StreamEncoding.ts"

/**
 * A fast path: answers a request and returns true, or returns false to let the
 * Effect application answer it.
 *
 * @category models
 * @since 0.1.0
 */
export type Front = (request: IncomingMessage, response: ServerResponse) => boolean

/** The Host lines of a request (Node keeps the first of several in `headers`). */
const hostLines = (request: IncomingMessage): number => {
  const raw = request.rawHeaders
  let n = 0
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!
    if (name.length === 4 && name.toLowerCase() === "host") n++
  }
  return n
}

let hostRefusals = 0

/**
 * Refuses a request with more than one Host line (RFC 9112 §3.2: a server must
 * answer 400, the request's target is ambiguous): 400 `INVALID_REQUEST`
 * (`HOST_HEADER_REPEATED`) in its path's error family, and the connection is
 * closed. Returns whether it refused.
 *
 * @category http
 * @since 0.1.0
 */
export const refuseRepeatedHost = (request: IncomingMessage, response: ServerResponse): boolean => {
  if (hostLines(request) <= 1) return false
  const path = request.url ?? "/"
  const detail = "more than one Host header (RFC 9112 section 3.2)"
  const headers = { connection: "close" }
  hostRefusals = (hostRefusals + 1) % Number.MAX_SAFE_INTEGER
  writeResponse(
    request,
    response,
    path === "/v1" || path.startsWith("/v1/") || path.startsWith("/v1?")
      ? AggregatorErrors.fail("INVALID_REQUEST", ["HOST_HEADER_REPEATED"], { detail, headers })
      : Http.errorResponse(SolverErrors.failure("INVALID_REQUEST", ["HOST_HEADER_REPEATED"], { detail }), headers),
    `host-refused-${hostRefusals.toString(36)}`
  )
  return true
}

/**
 * A `node:http` server whose requests go through an installed fast path first,
 * and whose connections and requests go through its connection guard, when it
 * has one (`Connections.makeServer`). A request with more than one Host line
 * is refused before either ({@link refuseRepeatedHost}).
 *
 * @category http
 * @since 0.1.0
 */
export class FrontServer extends Server {
  /** The installed fast path, if any. */
  front: Front | undefined = undefined
  /** The connection caps and the shutdown of idle connections, if any. */
  guard: Connections.Guard | undefined = undefined
  /** Run first when the server closes (the installed fast path ends its event streams). */
  onClose: (() => void) | undefined = undefined
  override emit(event: string | symbol, ...args: Array<any>): boolean {
    if (
      (event === "request" || event === "checkContinue") &&
      refuseRepeatedHost(args[0] as IncomingMessage, args[1] as ServerResponse)
    ) {
      return true
    }
    const guard = this.guard
    if (guard !== undefined) {
      if (event === "connection") {
        if (!guard.admit(args[0] as Socket)) return true
      } else if (event === "request" || event === "checkContinue") {
        if (guard.request(args[0] as IncomingMessage, args[1] as ServerResponse)) return true
      }
    }
    if (
      event === "request" && this.front !== undefined &&
      this.front(args[0] as IncomingMessage, args[1] as ServerResponse)
    ) {
      return true
    }
    return super.emit(event as string, ...args)
  }
  override close(callback?: (error?: Error) => void): this {
    // event streams end first (an open stream would hold the close for the whole grace period);
    // idle and unstarted connections go now, busy ones once their response is done
    this.onClose?.()
    this.guard?.close()
    return super.close(callback)
  }
}

/**
 * A server that runs a fast path once one is installed through its slot.
 *
 * @category http
 * @since 0.1.0
 */
export const makeServer = (options: ServerOptions): FrontServer => new FrontServer(options)

/**
 * Where an app installs its fast path: the server it is served by.
 *
 * @category services
 * @since 0.1.0
 */
export class Slot extends Context.Service<Slot, {
  /** Installs a fast path, and what to do first when the server closes (end its streams). */
  readonly install: (front: Front, onClose?: () => void) => Effect.Effect<void, never, Scope.Scope>
}>()("@svc/server/FastPath/Slot") {}

/**
 * The slot of a {@link FrontServer}.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerSlot = (server: FrontServer): Layer.Layer<Slot> =>
  Layer.succeed(
    Slot,
    Slot.of({
      install: (front, onClose) =>
        Effect.acquireRelease(
          Effect.sync(() => {
            server.front = front
            server.onClose = onClose
          }),
          () =>
            Effect.sync(() => {
              server.front = undefined
              server.onClose = undefined
            })
        )
    })
  )

const pathOfOperation = (name: string): string => {
  let path: string | undefined
  HttpApi.reflect(Api.Api, {
    onGroup() {},
    onEndpoint({ endpoint }) {
      if (endpoint.identifier === name) path = endpoint.path
    }
  })
  if (path === undefined) throw new Error(`the contract has no operation ${name}`)
  return path
}

/**
 * Writes an `HttpServerResponse` built by the shared response helpers to a
 * `node:http` response (prepared bytes or no body).
 *
 * @category http
 * @since 0.1.0
 */
export const writeResponse = (
  request: IncomingMessage,
  res: ServerResponse,
  response: HttpServerResponse.HttpServerResponse,
  requestId: string
): void => {
  const headers = headersOf(response)
  headers["x-request-id"] = requestId
  const body = response.body
  res.writeHead(response.status, headers)
  if (body._tag === "Uint8Array") res.end(request.method === "HEAD" ? undefined : body.body)
  else res.end()
}

/** A response's headers as `writeHead` takes them (without the request id), flattened once per response. */
const flattened = new WeakMap<HttpServerResponse.HttpServerResponse, Readonly<Record<string, string>>>()

const headersOf = (response: HttpServerResponse.HttpServerResponse): Record<string, string> => {
  let headers = flattened.get(response)
  if (headers === undefined) {
    const record: Record<string, string> = { ...(response.headers as Record<string, string>) }
    const body = response.body
    if (body._tag === "Uint8Array") {
      record["content-type"] = body.contentType
      record["content-length"] = String(body.body.length)
    }
    headers = record
    flattened.set(response, headers)
  }
  // a copy: the request id is added per request
  return { ...headers }
}

/**
 * What the fast path works with.
 *
 * @category models
 * @since 0.1.0
 */
export interface FastPathContext {
  readonly publisher: Publisher.Publisher["Service"]
  readonly feed: FeedServing.FeedServing
  readonly broadcaster: Broadcaster.Broadcaster
  readonly clients: ClientAddress.Resolver
  readonly requestIds: RequestIds
  /** The kernel's send queues of the stream sockets (the backlog bound); none: the process's own buffers only. */
  readonly queues?: SocketQueues.SocketQueues | undefined
  /** Records each answered request (`http_requests_total`, `http_request_duration_ms`); none: not recorded. */
  readonly metrics?: HttpMetrics.Recorder | undefined
  /** The per-client budget of feed requests; none: unlimited. */
  readonly feedBudget?: FeedBudget.FeedBudget | undefined
}

/**
 * How long an ended event stream may take to flush its last bytes before its
 * connection is reset (a subscriber that stopped reading never flushes).
 *
 * @category constants
 * @since 0.1.0
 */
export const STREAM_END_GRACE_MILLIS = 1000

/** Drops a connection at once, and the kernel's queued bytes with it (a reset, not a FIN after the queue). */
const reset = (socket: Socket | null) => {
  if (socket === null || socket.destroyed) return
  try {
    socket.resetAndDestroy()
  } catch {
    socket.destroy()
  }
}

/** Ends a stream; a connection that does not take its last bytes within the grace is reset. */
const endStream = (res: ServerResponse, bytes: Uint8Array | undefined) => {
  if (bytes === undefined) res.end()
  else res.end(bytes)
  if (res.writableFinished) return
  const timer = setTimeout(() => reset(res.socket), STREAM_END_GRACE_MILLIS)
  timer.unref()
  res.once("close", () => clearTimeout(timer))
  res.once("finish", () => clearTimeout(timer))
}

const FEED_PARAMETERS = new Set(["sourceChainId", "sourceNetworkId"])

/** The filter of a feed query the fast path takes, or undefined to leave the request to the handler. */
const feedFilter = (query: string): Publisher.FeedFilter | undefined => {
  if (query.length === 0) return {}
  const filter: { sourceChainId?: string; sourceNetworkId?: string } = {}
  for (const [key, value] of new URLSearchParams(query)) {
    if (!FEED_PARAMETERS.has(key) || filter[key as "sourceChainId"] !== undefined) return undefined
    filter[key as "sourceChainId"] = value
  }
  return filter
}

const headerOf = (value: string | Array<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.join(", ")

/**
 * The current publication, when one is valid now.
 *
 * @category validation
 * @since 0.1.0
 */
export const validPublication = (
  publisher: Publisher.Publisher["Service"]
): { readonly publication: Publisher.Publication } | { readonly unavailable: Publisher.PublicationUnavailable } => {
  const state = publisher.peek()
  if (state._tag === "Open" && state.publication.validUntil > Math.floor(Date.now() / 1000)) {
    return { publication: state.publication }
  }
  // the same refusal as the Effect path (Publisher.current)
  const reason = state._tag === "Open" ? "the current publication has expired" : state.reason
  return { unavailable: new Publisher.PublicationUnavailable({ closed: state._tag === "Closed", reason }) }
}

/**
 * The fast path of a server.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (context: FastPathContext): Front => {
  const feedPath = pathOfOperation("getSolverFeed")
  const eventsPath = pathOfOperation("streamSolverFeed")
  const metrics = context.metrics
  const operations = {
    feed: { GET: `GET ${feedPath}`, HEAD: `HEAD ${feedPath}` },
    events: { GET: `GET ${eventsPath}`, HEAD: `HEAD ${eventsPath}` }
  } as const
  const answered = (
    req: IncomingMessage,
    res: ServerResponse,
    response: HttpServerResponse.HttpServerResponse,
    requestId: string,
    operation: string,
    started: number
  ) => {
    writeResponse(req, res, response, requestId)
    metrics?.(operation, response.status, performance.now() - started)
  }

  const serveFeed = (req: IncomingMessage, res: ServerResponse, query: string): boolean => {
    const filter = feedFilter(query)
    if (filter === undefined || (query.length > 0 && Publisher.filterIssues(filter).length > 0)) return false
    const started = performance.now()
    const operation = operations.feed[req.method as "GET" | "HEAD"]
    const requestId = context.requestIds.of(req.headers["x-request-id"])
    const overBudget = context.feedBudget?.take(context.clients.resolve(req.socket.remoteAddress, req.headers))
    if (overBudget !== undefined) {
      answered(req, res, overBudget, requestId, operation, started)
      return true
    }
    const current = validPublication(context.publisher)
    if ("unavailable" in current) {
      const refusal = Http.errorResponse(SolverErrors.fromPublicationUnavailable(current.unavailable))
      answered(req, res, refusal, requestId, operation, started)
      return true
    }
    const answer = context.feed.respond(
      current.publication,
      filter,
      headerOf(req.headers["if-none-match"]),
      headerOf(req.headers["accept-encoding"])
    )
    if (answer instanceof Promise) {
      answer.then((response) => answered(req, res, response, requestId, operation, started), () => res.destroy())
    } else answered(req, res, answer, requestId, operation, started)
    return true
  }

  const serveEvents = (req: IncomingMessage, res: ServerResponse, query: string): boolean => {
    if (query.length > 0) return false
    const started = performance.now()
    const operation = operations.events[req.method as "GET" | "HEAD"]
    const requestId = context.requestIds.of(req.headers["x-request-id"])
    const client = context.clients.resolve(req.socket.remoteAddress, req.headers)
    const current = validPublication(context.publisher)
    const refused = FeedHandlers.streamRefusal(
      { publisher: context.publisher, feed: context.feed, broadcaster: context.broadcaster },
      "unavailable" in current ? Result.fail(current.unavailable) : Result.succeed(current.publication),
      client
    )
    if (refused !== undefined) {
      answered(req, res, Http.errorResponse(refused), requestId, operation, started)
      return true
    }
    const encoding = StreamEncoding.negotiate(headerOf(req.headers["accept-encoding"]))
    res.writeHead(200, { ...FeedHandlers.streamHeaders(encoding), "x-request-id": requestId })
    metrics?.(operation, 200, performance.now() - started)
    if (req.method === "HEAD") {
      res.end()
      return true
    }
    const socket = req.socket
    const tracked = context.queues?.track(socket)
    const unsubscribe = context.broadcaster.subscribe({
      client,
      encoding,
      write: (bytes) => void res.write(bytes),
      buffered: () => res.writableLength,
      queued: tracked?.unacknowledged,
      end: (bytes) => endStream(res, bytes),
      // a subscriber that fell behind: its queued bytes are dropped with it
      destroy: () => reset(socket)
    }, headerOf(req.headers["last-event-id"]))
    res.on("close", () => {
      unsubscribe()
      tracked?.release()
    })
    return true
  }

  return (req, res) => {
    const method = req.method
    if (method !== "GET" && method !== "HEAD") return false
    const url = req.url ?? "/"
    const q = url.indexOf("?")
    const path = q === -1 ? url : url.slice(0, q)
    const query = q === -1 ? "" : url.slice(q + 1)
    if (path === feedPath) return serveFeed(req, res, query)
    if (path === eventsPath) return serveEvents(req, res, query)
    return false
  }
}

/**
 * Connection limits of the `node:http` server: what one client, or all of them,
 * may hold open, how long a request may take to arrive, and a shutdown that does
 * not wait for idle or stalled connections.
 *
 * - **Global cap** (`maxConnections`): at the cap, a new connection makes room
 *   by closing one that costs a descriptor and delivers nothing: one already
 *   refused, else an idle keep-alive connection, one still sending its
 *   headers, or one whose request body is still arriving, of the peer address
 *   that holds the most connections, oldest first. Connections with a request
 *   being answered (event streams included) and those of trusted proxies are
 *   never closed for room. Only when none can be closed is the new connection
 *   closed at once, before anything is read. So a crowd of addresses holding
 *   connections open for free cannot lock new clients out: each newcomer
 *   pushes out one of theirs. Keep the cap below the process's open-file
 *   limit: when the descriptors run out, the kernel resets every new
 *   connection, other clients' included. {@link defaultMaxConnections} derives
 *   it from that limit.
 * - **Per-client cap** (`maxPerClient`): a connection from a peer address that
 *   already holds that many is answered `503` (`AUTHORITY_UNAVAILABLE`,
 *   `TOO_MANY_CLIENT_CONNECTIONS`, `Retry-After`, `Connection: close`) and
 *   closed; its request is read and discarded for at most a second, so that the
 *   close does not reset the answer. A peer in the trusted proxy list carries
 *   many clients: its connections count only toward the global cap, and its
 *   requests count per client (the address its forwarding headers name,
 *   `ClientAddress`): a client with `maxPerClient` requests in flight (event
 *   streams included) gets the same 503 as a JSON envelope of its path's family.
 * - **Timeouts** ({@link serverOptions}): a request's headers must arrive within
 *   `headersTimeoutSeconds`, the whole request (headers and body) within
 *   `requestTimeoutSeconds`, checked every second at most; Node answers `408` and
 *   closes. The response is not limited: an event stream (a GET whose request is
 *   complete at its headers) lives on, and an idle keep-alive connection is
 *   governed by the keep-alive timeout alone.
 * - **Shutdown** ({@link Guard.close}, run by `server.close()`): connections with
 *   no request in progress, idle keep-alive ones and those still sending headers
 *   included, are closed at once; a request whose body is still arriving (a slow
 *   upload) is answered `503` at once (`SHUTTING_DOWN`, `Retry-After`,
 *   `Connection: close`) instead of waiting for the rest of its body; other busy
 *   connections get `Connection: close` and are closed when their response is
 *   done, so that the server stops as soon as the last response is sent (event
 *   streams are ended first, and reset when their subscriber does not read:
 *   `FastPath`).
 *
 * @since 0.1.0
 */
import type { IpNetwork } from "effect/net"
import { readFileSync } from "node:fs"
import type { IncomingMessage, ServerOptions, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import * as AggregatorErrors from "./AggregatorErrors.ts"
import * as ClientAddress from "./ClientAddress.ts"
import * as FastPath from "./FastPath.ts"
import * as Http from "./Http.ts"
import * as SolverErrors from "./SolverErrors.ts"

/**
 * The limits of a server.
 *
 * @category models
 * @since 0.1.0
 */
export interface ConnectionOptions {
  /** Open connections of the server. Default: {@link defaultMaxConnections}. */
  readonly maxConnections?: number | undefined
  /** Open connections of one peer address; requests in flight of one client behind a trusted proxy. Default 128. */
  readonly maxPerClient?: number | undefined
  /** Proxies whose connections carry many clients. */
  readonly trustedProxies?: ReadonlyArray<IpNetwork.IpNetwork> | undefined
  /** The header the trusted proxies name the client in. Default `x-forwarded-for`. */
  readonly clientAddressHeader?: string | undefined
  /** Time to receive a request's headers, seconds. Default 10. */
  readonly headersTimeoutSeconds?: number | undefined
  /** Time to receive a whole request, seconds. Default 30. */
  readonly requestTimeoutSeconds?: number | undefined
  /** Idle keep-alive connections are closed after this, seconds. Default 65. */
  readonly keepAliveTimeoutSeconds?: number | undefined
}

/**
 * What a guard counted.
 *
 * @category models
 * @since 0.1.0
 */
export interface ConnectionStats {
  /** Open connections (refused ones still closing included). */
  readonly open: number
  /** Connections closed at once at the global cap (none could be closed to make room). */
  readonly refusedGlobal: number
  /** Connections closed at the global cap to make room for a new one. */
  readonly evicted: number
  /** Connections answered 503 at the per-client cap. */
  readonly refusedPerClient: number
  /** Requests from trusted proxies answered 503 at the per-client cap. */
  readonly refusedRequests: number
}

/**
 * The connection guard of a server (see the module description).
 *
 * @category models
 * @since 0.1.0
 */
export interface Guard {
  /** Admits a new connection, or refuses it (and takes care of it) and returns false. */
  readonly admit: (socket: Socket) => boolean
  /** Accounts a request; refuses it (answered here) and returns true at the per-client cap. */
  readonly request: (request: IncomingMessage, response: ServerResponse) => boolean
  /** The server is closing: closes idle connections now and busy ones when they are done. */
  readonly close: () => void
  readonly stats: () => ConnectionStats
  /** The effective caps. */
  readonly limits: { readonly maxConnections: number; readonly maxPerClient: number }
}

/**
 * The default cap of open connections when none is configured.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_MAX_CONNECTIONS = 12_000

/** Descriptors kept for everything else the process opens (store, logs, RPC, Redis). */
const RESERVED_DESCRIPTORS = 256

/**
 * The process's soft limit of open files (Linux, from /proc/self/limits), if known.
 *
 * @category running
 * @since 0.1.0
 */
export const openFileLimit = (): number | undefined => {
  try {
    const match = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync("/proc/self/limits", "utf8"))
    return match === null || match[1] === "unlimited" ? undefined : Number(match[1])
  } catch {
    return undefined
  }
}

/**
 * The cap of open connections when none is configured: 12,000 (the default
 * 10,000 event-stream subscribers and room for requests), lowered to the
 * open-file limit minus 256 when that is smaller.
 *
 * @category running
 * @since 0.1.0
 */
export const defaultMaxConnections = (limit: number | undefined = openFileLimit()): number =>
  limit === undefined
    ? DEFAULT_MAX_CONNECTIONS
    : Math.max(16, Math.min(DEFAULT_MAX_CONNECTIONS, limit - RESERVED_DESCRIPTORS))

/**
 * The `node:http` options of the timeouts.
 *
 * @category running
 * @since 0.1.0
 */
export const serverOptions = (options?: ConnectionOptions): ServerOptions => {
  const headers = 1000 * (options?.headersTimeoutSeconds ?? 10)
  const request = Math.max(headers, 1000 * (options?.requestTimeoutSeconds ?? 30))
  return {
    headersTimeout: headers,
    requestTimeout: request,
    // Node checks both timeouts on an interval (default 30 s), by which a connection can overstay them
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headers / 4))),
    // idle keep-alive connections outlive common clients' own idle timeouts (4-60 s), so that a
    // client never reuses a connection the server is closing
    keepAliveTimeout: 1000 * (options?.keepAliveTimeoutSeconds ?? 65)
  }
}

/** How long a refused connection may take to send its request before it is closed. */
const REFUSAL_LINGER_MILLIS = 1000

const RETRY_AFTER_SECONDS = 5

const REASON = "TOO_MANY_CLIENT_CONNECTIONS"

const SHUTDOWN_DETAIL = "the server is stopping; retry (another replica, or this one once restarted, answers)"

/** The 503 of a request whose body was still arriving at shutdown, in its path's family. */
const shutdownAnswer = (path: string) =>
  isAggregatorPath(path)
    ? AggregatorErrors.fail("SERVICE_UNAVAILABLE", ["SHUTTING_DOWN"], {
      detail: SHUTDOWN_DETAIL,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
      headers: { connection: "close" }
    })
    : Http.errorResponse(
      SolverErrors.failure("AUTHORITY_UNAVAILABLE", ["SHUTTING_DOWN"], {
        detail: SHUTDOWN_DETAIL,
        retryAfterSeconds: RETRY_AFTER_SECONDS
      }),
      { connection: "close" }
    )

const isAggregatorPath = (path: string): boolean => path === "/v1" || path.startsWith("/v1/") || path.startsWith("/v1?")

const solverRefusal = () =>
  Http.errorResponse(SolverErrors.failure("AUTHORITY_UNAVAILABLE", [REASON], {
    detail: "too many open connections from this client address",
    retryAfterSeconds: RETRY_AFTER_SECONDS
  }))

const aggregatorRefusal = () =>
  AggregatorErrors.fail("SERVICE_UNAVAILABLE", [REASON], {
    detail: "too many open connections from this client address",
    retryAfterSeconds: RETRY_AFTER_SECONDS
  })

/** The raw 503 of a refused connection, built once. */
const refusalBytes = (): Uint8Array => {
  const response = solverRefusal()
  const body = response.body._tag === "Uint8Array" ? response.body.body : new Uint8Array()
  const headers: Record<string, string> = {
    ...(response.headers as Record<string, string>),
    "content-type": Http.JSON_TYPE,
    "content-length": String(body.length),
    connection: "close"
  }
  const head = `HTTP/1.1 503 Service Unavailable\r\n${
    Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")
  }\r\n`
  const bytes = new Uint8Array(Buffer.byteLength(head) + body.length)
  bytes.set(Buffer.from(head, "latin1"), 0)
  bytes.set(body, bytes.length - body.length)
  return bytes
}

interface SocketState {
  /** The peer address, when its connections are counted per peer (not a trusted proxy). */
  readonly peer: string | undefined
  /** Closed for accounting: its count was given back (closing it or its close event). */
  released: boolean
  /** Requests in progress. */
  busy: number
  /** The newest response, for `Connection: close` at shutdown. */
  current: ServerResponse | undefined
  /** The request of {@link current}. */
  request: IncomingMessage | undefined
}

/**
 * The guard of a set of limits.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options?: ConnectionOptions): Guard => {
  const maxConnections = Math.max(1, options?.maxConnections ?? defaultMaxConnections())
  const maxPerClient = Math.max(1, options?.maxPerClient ?? 128)
  const trusted = options?.trustedProxies ?? []
  const isTrusted = ClientAddress.trusts(trusted)
  const resolver = ClientAddress.makeResolver(trusted, options?.clientAddressHeader)
  const refusal = refusalBytes()
  const sockets = new Map<Socket, SocketState>()
  const refusing = new Set<Socket>()
  // the open connections of each counted peer, oldest first
  const perPeer = new Map<string, Set<Socket>>()
  const perClient = new Map<string, number>()
  let closing = false
  let refusedGlobal = 0
  let evicted = 0
  let refusedPerClient = 0
  let refusedRequests = 0
  let drained = 0

  /** Gives a connection's place back (once). */
  const release = (socket: Socket, state: SocketState) => {
    if (state.released) return
    state.released = true
    sockets.delete(socket)
    if (state.peer === undefined) return
    const mine = perPeer.get(state.peer)
    mine?.delete(socket)
    if (mine !== undefined && mine.size === 0) perPeer.delete(state.peer)
  }

  /** Whether a connection delivers nothing now: no request, or one whose body is still arriving and unanswered. */
  const idle = (state: SocketState) =>
    state.busy === 0 ||
    (state.busy === 1 && state.request !== undefined && !state.request.complete &&
      state.current !== undefined && !state.current.headersSent)

  /** The connection to close for room at the global cap, if any (see the module description). */
  const victim = (): Socket | undefined => {
    for (const socket of refusing) return socket
    let best: Socket | undefined
    let bestCount = 0
    for (const mine of perPeer.values()) {
      if (mine.size <= bestCount) continue
      for (const socket of mine) {
        if (idle(sockets.get(socket)!)) {
          best = socket
          bestCount = mine.size
          break
        }
      }
    }
    return best
  }

  /** Closes a connection to make room: its place is given back at once. */
  const evict = (socket: Socket) => {
    evicted++
    refusing.delete(socket)
    const state = sockets.get(socket)
    if (state !== undefined) release(socket, state)
    socket.destroy()
  }

  const decrement = (map: Map<string, number>, key: string) => {
    const n = (map.get(key) ?? 1) - 1
    if (n <= 0) map.delete(key)
    else map.set(key, n)
  }

  const refuse = (socket: Socket) => {
    refusing.add(socket)
    socket.once("close", () => refusing.delete(socket))
    socket.on("error", () => {})
    // read and discard the request: closing a socket with unread bytes would reset the answer
    socket.on("end", () => socket.destroy())
    socket.setTimeout(REFUSAL_LINGER_MILLIS, () => socket.destroy())
    socket.resume()
    socket.end(refusal)
  }

  return {
    limits: { maxConnections, maxPerClient },
    admit: (socket) => {
      if (closing) {
        socket.destroy()
        return false
      }
      const peer = socket.remoteAddress ?? "unknown"
      const counted = !isTrusted(peer)
      let mine = counted ? perPeer.get(peer) : undefined
      const atClientCap = mine !== undefined && mine.size >= maxPerClient
      if (sockets.size + refusing.size >= maxConnections) {
        // no room is made for a client at its own cap, nor when nothing can be closed
        const room = atClientCap ? undefined : victim()
        if (room === undefined) {
          refusedGlobal++
          socket.destroy()
          return false
        }
        evict(room)
        // the closed connection may have been this peer's
        mine = counted ? perPeer.get(peer) : undefined
      } else if (atClientCap) {
        refusedPerClient++
        refuse(socket)
        return false
      }
      if (counted) {
        if (mine === undefined) {
          mine = new Set()
          perPeer.set(peer, mine)
        }
        mine.add(socket)
      }
      const state: SocketState = {
        peer: counted ? peer : undefined,
        released: false,
        busy: 0,
        current: undefined,
        request: undefined
      }
      sockets.set(socket, state)
      socket.once("close", () => release(socket, state))
      return true
    },
    request: (request, response) => {
      const socket = request.socket
      const state = sockets.get(socket)
      if (state !== undefined) {
        state.busy++
        state.current = response
        state.request = request
        if (closing) response.setHeader("connection", "close")
        response.once("close", () => {
          state.busy--
          if (state.current === response) {
            state.current = undefined
            state.request = undefined
          }
          if (closing && state.busy === 0) socket.destroySoon()
        })
      }
      if (trusted.length === 0 || !isTrusted(socket.remoteAddress)) return false
      const client = resolver.resolve(socket.remoteAddress, request.headers)
      const n = perClient.get(client) ?? 0
      if (n >= maxPerClient) {
        refusedRequests++
        const path = request.url ?? "/"
        FastPath.writeResponse(
          request,
          response,
          isAggregatorPath(path) ? aggregatorRefusal() : solverRefusal(),
          `refused-${refusedRequests.toString(36)}`
        )
        return true
      }
      perClient.set(client, n + 1)
      response.once("close", () => decrement(perClient, client))
      return false
    },
    close: () => {
      closing = true
      for (const socket of refusing) socket.destroy()
      for (const [socket, state] of sockets) {
        if (state.busy === 0) socket.destroy()
        else if (state.current !== undefined && !state.current.headersSent) {
          const request = state.request
          if (request !== undefined && !request.complete) {
            // the body is still arriving: waiting for it would hold the shutdown up to the request
            // timeout and then cut the connection without an answer
            drained++
            FastPath.writeResponse(
              request,
              state.current,
              shutdownAnswer(request.url ?? "/"),
              `shutdown-${drained.toString(36)}`
            )
          } else {
            state.current.setHeader("connection", "close")
          }
        }
      }
    },
    stats: () => ({
      open: sockets.size + refusing.size,
      refusedGlobal,
      evicted,
      refusedPerClient,
      refusedRequests
    })
  }
}

/**
 * A server with the fast path's slot, the timeouts and the guard of a set of
 * limits.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeServer = (options?: ConnectionOptions): FastPath.FrontServer => {
  const server = FastPath.makeServer(serverOptions(options))
  server.guard = make(options)
  return server
}

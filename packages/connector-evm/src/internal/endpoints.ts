/**
 * Several JSON-RPC endpoints of one chain behind one viem transport: requests go
 * to one endpoint (the primary) for as long as it answers, so that what a
 * settlement pass reads is one node's consistent view; an endpoint that cannot
 * be reached (a refused connection, a time-out, an HTTP error, a rate limit) is
 * set aside for a cool-down and the request goes to the next one. A node's
 * answer (a revert, "nonce too low", a JSON-RPC error) is an answer: it is not
 * retried elsewhere. On a switch, an endpoint whose head lags the highest head
 * seen from any endpoint is passed over while another one is up to date, so
 * that a lagging node is not mistaken for a reorganisation. An endpoint set
 * aside is health-checked: once its cool-down has passed, reading the status
 * asks it for its head off the request path, so that its `up` says whether it
 * answers now (and an alert on it clears when it is back). Internal.
 */
import { BaseError, custom, http, type Transport } from "viem"

/**
 * What one endpoint has done, for metrics and health (its position in the
 * configuration and its host; never the URL, which may carry an API key).
 */
export interface EndpointStatus {
  readonly index: number
  readonly host: string
  /** Whether its last request got through; null before the first. */
  readonly up: boolean | null
  readonly primary: boolean
  readonly requests: number
  readonly failures: number
  /** Its last head block number, when it reported one. */
  readonly head: bigint | null
}

/** Several endpoints of one chain. */
export interface Endpoints {
  readonly transport: Transport
  /** What each endpoint has done; starts the health check of those set aside whose cool-down has passed. */
  readonly status: () => ReadonlyArray<EndpointStatus>
  /** The health check `status` starts, awaited: each endpoint set aside and rested is asked for its head. */
  readonly check: () => Promise<void>
}

interface State {
  readonly index: number
  readonly host: string
  readonly request: (args: { method: string; params?: unknown }) => Promise<unknown>
  up: boolean | null
  requests: number
  failures: number
  head: bigint | null
  /** Local time before which it is not tried unless nothing else is up. */
  resting: number
}

/** Whether an error means the endpoint could not answer (try another), not the node's answer. */
export const unreachable = (error: unknown): boolean => {
  if (!(error instanceof BaseError)) return true
  const found = error.walk((e) =>
    e instanceof BaseError && (e.name === "HttpRequestError" || e.name === "TimeoutError" ||
      e.name === "WebSocketRequestError")
  )
  if (found === null || found === undefined) return false
  return true
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host
  } catch {
    return "?"
  }
}

const HEAD_METHODS = new Set(["eth_blockNumber", "eth_getBlockByNumber"])

/**
 * One transport over several endpoints (in order of preference).
 */
export const endpoints = (
  urls: ReadonlyArray<string>,
  options: { readonly timeoutMillis: number; readonly restMillis?: number | undefined }
): Endpoints => {
  const rest = options.restMillis ?? 5_000
  const states: Array<State> = urls.map((url, index) => {
    const transport = http(url, { timeout: options.timeoutMillis, retryCount: 0 })({ retryCount: 0 })
    return {
      index,
      host: hostOf(url),
      request: (args) => transport.request(args as never) as Promise<unknown>,
      up: null,
      requests: 0,
      failures: 0,
      head: null,
      resting: 0
    }
  })
  let primary = 0
  let highest: bigint | null = null

  const noteHead = (s: State, method: string, params: unknown, result: unknown) => {
    let head: bigint | null = null
    if (method === "eth_blockNumber" && typeof result === "string") head = BigInt(result)
    else if (
      method === "eth_getBlockByNumber" && Array.isArray(params) && params[0] === "latest" &&
      typeof result === "object" && result !== null && typeof (result as { number?: unknown }).number === "string"
    ) head = BigInt((result as { number: string }).number)
    if (head === null) return
    s.head = head
    if (highest === null || head > highest) highest = head
  }

  /** An endpoint that is not the primary lags when its head is behind the highest seen. */
  const lags = async (s: State) => {
    if (highest === null) return false
    try {
      const result = await s.request({ method: "eth_blockNumber" })
      s.requests++
      noteHead(s, "eth_blockNumber", [], result)
      return s.head !== null && s.head < highest
    } catch {
      return false
    }
  }

  const request = async ({ method, params }: { method: string; params?: unknown }): Promise<unknown> => {
    const now = Date.now()
    const order = [states[primary]!, ...states.filter((s) => s.index !== primary)]
    const awake = order.filter((s) => s.resting <= now)
    const candidates = awake.length > 0 ? [...awake, ...order.filter((s) => s.resting > now)] : order
    let failure: unknown
    for (const [position, s] of candidates.entries()) {
      // a switch: pass over an endpoint that lags while another candidate remains
      if (s.index !== primary && position < candidates.length - 1 && await lags(s)) continue
      s.requests++
      try {
        const result = await s.request({ method, params })
        s.up = true
        if (HEAD_METHODS.has(method)) noteHead(s, method, params, result)
        primary = s.index
        return result
      } catch (e) {
        if (!unreachable(e)) {
          s.up = true
          throw e
        }
        s.up = false
        s.failures++
        s.resting = Date.now() + rest
        failure = e
      }
    }
    throw failure
  }

  /** One health check at a time: the endpoints that failed, are not in use and have rested, asked for their head. */
  let checking: Promise<void> | undefined
  const check = (): Promise<void> => {
    if (checking !== undefined) return checking
    const now = Date.now()
    const due = states.filter((s) => s.index !== primary && s.up === false && s.resting <= now)
    if (due.length === 0) return Promise.resolve()
    checking = Promise.all(due.map(async (s) => {
      s.requests++
      try {
        noteHead(s, "eth_blockNumber", [], await s.request({ method: "eth_blockNumber" }))
        s.up = true
      } catch (e) {
        // a JSON-RPC error is the node answering
        if (!unreachable(e)) s.up = true
        else {
          s.failures++
          s.resting = Date.now() + rest
        }
      }
    })).then(() => {
      checking = undefined
    })
    return checking
  }

  return {
    transport: custom({ request }, { retryCount: 0 }),
    check,
    status: () => {
      void check()
      return states.map((s) => ({
        index: s.index,
        host: s.host,
        up: s.up,
        primary: s.index === primary,
        requests: s.requests,
        failures: s.failures,
        head: s.head
      }))
    }
  }
}

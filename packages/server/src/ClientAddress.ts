/**
 * The address of the client of a request, as the rate limits and the connection
 * caps key on it. By default it is the socket's peer. Behind a load balancer,
 * `SVC_TRUSTED_PROXIES` names the proxies (addresses or CIDR ranges): when the
 * peer is one of them, the client is read from **one** header, the one the
 * trusted proxy writes (`SVC_CLIENT_ADDRESS_HEADER`, default `x-forwarded-for`).
 * Its list of addresses (`for=` values for `forwarded`) is walked from the
 * right, skipping trusted proxies, and the first other address is the client
 * (the leftmost one when every hop is trusted). Every other forwarding header is
 * ignored: a header the proxy does not write is one the client alone controls,
 * so reading it would let a client choose its own key. Headers from a peer that
 * is not trusted are ignored too.
 *
 * The same resolution serves the Effect request path and the `node:http` fast
 * path.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, Result } from "effect"
import { HttpServerRequest } from "effect/http"
import { IpNetwork, NetAddress } from "effect/net"

/**
 * A trusted proxy list could not be parsed.
 *
 * @category errors
 * @since 0.1.0
 */
export class TrustedProxiesInvalid extends Error {
  override readonly name = "TrustedProxiesInvalid"
}

/**
 * Parses a comma-separated list of addresses and CIDR ranges (an address alone
 * is a /32 or /128 network).
 *
 * @category encoding
 * @since 0.1.0
 */
export const parseTrustedProxies = (
  list: string
): Result.Result<ReadonlyArray<IpNetwork.IpNetwork>, TrustedProxiesInvalid> => {
  const networks: Array<IpNetwork.IpNetwork> = []
  for (const raw of list.split(",").map((s) => s.trim()).filter((s) => s.length > 0)) {
    const input = raw.includes("/") ? raw : `${raw}/${raw.includes(":") ? 128 : 32}`
    const network = IpNetwork.fromString(input)
    if (Result.isFailure(network)) {
      return Result.fail(new TrustedProxiesInvalid(`${raw} is not an IP address or CIDR range`))
    }
    networks.push(network.success)
  }
  return Result.succeed(networks)
}

const parseAddress = (input: string | undefined): NetAddress.IpAddress | undefined => {
  if (input === undefined || input.length === 0) return undefined
  let text = input.trim()
  if (text.startsWith("\"") && text.endsWith("\"")) text = text.slice(1, -1)
  if (text.startsWith("[")) {
    const end = text.indexOf("]")
    if (end === -1) return undefined
    text = text.slice(1, end)
  } else if (/^[0-9.]+:[0-9]+$/.test(text)) {
    text = text.slice(0, text.indexOf(":"))
  }
  const ip = NetAddress.ipFromString(text)
  return Result.isSuccess(ip) ? NetAddress.toCanonical(ip.success) : undefined
}

/** One header value, repeated headers joined as node:http joins them. */
const headerOf = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value === undefined ? undefined : value.join(", ")

/** The `for=` values of a Forwarded header, in order. */
const forwardedFor = (header: string): Array<string> =>
  header.split(",").flatMap((element) =>
    element.split(";").map((pair) => pair.trim()).filter((pair) => /^for=/i.test(pair)).map((pair) => pair.slice(4))
  )

/**
 * The header a trusted proxy names the client in, when none is configured.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_HEADER = "x-forwarded-for"

/**
 * Checks and lowercases a client-address header name (an HTTP token).
 *
 * @category encoding
 * @since 0.1.0
 */
export const parseHeaderName = (name: string): Result.Result<string, TrustedProxiesInvalid> => {
  const trimmed = name.trim().toLowerCase()
  return /^[a-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(trimmed)
    ? Result.succeed(trimmed)
    : Result.fail(new TrustedProxiesInvalid(`${JSON.stringify(name)} is not an HTTP header name`))
}

/**
 * Request headers as either HTTP layer gives them (names in lowercase).
 *
 * @category models
 * @since 0.1.0
 */
export type Headers = { readonly [name: string]: string | ReadonlyArray<string> | undefined }

/**
 * The client address of a peer and the header its proxy writes.
 *
 * @category http
 * @since 0.1.0
 */
export interface Resolver {
  /** The header read from a trusted proxy (lowercase). */
  readonly header: string
  readonly resolve: (peer: string | undefined, headers: Headers) => string
}

/**
 * A resolver trusting the given proxy networks (none: the peer is the client),
 * reading the client from `header` (lowercase; default {@link DEFAULT_HEADER}).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeResolver = (
  trusted: ReadonlyArray<IpNetwork.IpNetwork>,
  header: string = DEFAULT_HEADER
): Resolver => {
  const isTrusted = (address: NetAddress.IpAddress) => trusted.some((network) => IpNetwork.contains(network, address))
  const name = header.toLowerCase()
  const hopsOf = name === "forwarded" ? forwardedFor : (value: string) => value.split(",").map((h) => h.trim())
  return {
    header: name,
    resolve: (peer, headers) => {
      const fallback = peer ?? "unknown"
      if (trusted.length === 0) return fallback
      const peerAddress = parseAddress(peer)
      if (peerAddress === undefined || !isTrusted(peerAddress)) return fallback
      const value = headerOf(headers[name])
      const hops = value === undefined ? undefined : hopsOf(value)
      if (hops === undefined || hops.length === 0) return fallback
      for (let i = hops.length - 1; i >= 0; i--) {
        const address = parseAddress(hops[i])
        if (address === undefined) return fallback
        if (i > 0 && isTrusted(address)) continue
        return NetAddress.formatIp(address)
      }
      return fallback
    }
  }
}

/**
 * Whether a peer address is one of the trusted proxy networks (its connections
 * carry many clients, told apart by their forwarding headers).
 *
 * @category http
 * @since 0.1.0
 */
export const trusts = (trusted: ReadonlyArray<IpNetwork.IpNetwork>) => (peer: string | undefined): boolean => {
  if (trusted.length === 0) return false
  const address = parseAddress(peer)
  return address !== undefined && trusted.some((network) => IpNetwork.contains(network, address))
}

/**
 * The client address of requests.
 *
 * @category services
 * @since 0.1.0
 */
export class ClientAddress extends Context.Service<ClientAddress, {
  readonly resolver: Resolver
  /** The client address of an Effect request. */
  readonly of: (request: HttpServerRequest.HttpServerRequest) => string
}>()("@svc/server/ClientAddress") {}

/**
 * The service for a trusted proxy list and the header its proxies write.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (trusted: ReadonlyArray<IpNetwork.IpNetwork>, header?: string): Layer.Layer<ClientAddress> => {
  const resolver = makeResolver(trusted, header)
  return Layer.succeed(
    ClientAddress,
    ClientAddress.of({
      resolver,
      of: (request) => resolver.resolve(Option.getOrUndefined(request.remoteAddress), request.headers)
    })
  )
}

/**
 * The client address of the current request.
 *
 * @category operations
 * @since 0.1.0
 */
export const current: Effect.Effect<string, never, ClientAddress | HttpServerRequest.HttpServerRequest> = Effect
  .flatMap(
    Effect.service(ClientAddress),
    (service) => Effect.map(Effect.service(HttpServerRequest.HttpServerRequest), service.of)
  )

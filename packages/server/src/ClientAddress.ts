/**
 * The address of the client of a request, as the rate limits and the connection
 * caps key on it. By default it is the socket's peer. Behind a load balancer,
 * `SVC_TRUSTED_PROXIES` names the proxies (addresses or CIDR ranges): when the
 * peer is one of them, the client is read from `Forwarded` (RFC 7239 `for=`) or,
 * without it, `X-Forwarded-For`: the list is walked from the right, skipping
 * trusted proxies, and the first other address is the client (the leftmost one
 * when every hop is trusted). Headers from a peer that is not trusted are
 * ignored, so a client cannot choose its own key.
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

/** The `for=` values of a Forwarded header, in order. */
const forwardedFor = (header: string): Array<string> =>
  header.split(",").flatMap((element) =>
    element.split(";").map((pair) => pair.trim()).filter((pair) => /^for=/i.test(pair)).map((pair) => pair.slice(4))
  )

/**
 * The client address of a peer and its forwarding headers.
 *
 * @category http
 * @since 0.1.0
 */
export interface Resolver {
  readonly resolve: (peer: string | undefined, headers: {
    readonly forwarded?: string | undefined
    readonly xForwardedFor?: string | undefined
  }) => string
}

/**
 * A resolver trusting the given proxy networks (none: the peer is the client).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeResolver = (trusted: ReadonlyArray<IpNetwork.IpNetwork>): Resolver => {
  const isTrusted = (address: NetAddress.IpAddress) => trusted.some((network) => IpNetwork.contains(network, address))
  return {
    resolve: (peer, headers) => {
      const fallback = peer ?? "unknown"
      if (trusted.length === 0) return fallback
      const peerAddress = parseAddress(peer)
      if (peerAddress === undefined || !isTrusted(peerAddress)) return fallback
      const hops = headers.forwarded !== undefined
        ? forwardedFor(headers.forwarded)
        : headers.xForwardedFor?.split(",").map((h) => h.trim())
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

const headerOf = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value === undefined ? undefined : value.join(", ")

/**
 * The service for a trusted proxy list.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (trusted: ReadonlyArray<IpNetwork.IpNetwork>): Layer.Layer<ClientAddress> => {
  const resolver = makeResolver(trusted)
  return Layer.succeed(
    ClientAddress,
    ClientAddress.of({
      resolver,
      of: (request) =>
        resolver.resolve(Option.getOrUndefined(request.remoteAddress), {
          forwarded: headerOf(request.headers["forwarded"]),
          xForwardedFor: headerOf(request.headers["x-forwarded-for"])
        })
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

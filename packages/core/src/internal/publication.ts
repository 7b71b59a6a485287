/**
 * The texts and bytes of a publication, assembled from pieces so that a large
 * publication can be built chunk by chunk (yielding to the event loop between
 * chunks) and so that what did not change since the last publication is not
 * serialized again. Every assembly here equals a one-shot serialization (property
 * tests in packages/core/test/PublicationText.test.ts):
 *
 * - canonical JSON: an object's canonical text is `{` + its members
 *   `"key":value` in sorted key order, joined by `,` + `}` (see
 *   `@svc/protocol/CanonicalJson`, the one definition used for every member here);
 *   so the text of an object whose one member changes is the text before that
 *   member, the member, and the text after it;
 * - JSON string escapes and UTF-8 bytes concatenate: the escape (or the bytes) of
 *   a concatenation is the concatenation of the escapes (bytes) of the pieces,
 *   for pieces that do not split a surrogate pair (canonical texts never have a
 *   lone surrogate: they escape it).
 *
 * Internal.
 */
import type { Hex } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import type { ActionableRoute } from "@svc/protocol/schema/Feed"
import { strictParseOptions } from "@svc/protocol/schema/index"
import { Result, Schema } from "effect"

// ---------------------------------------------------------------------------
// Canonical members
// ---------------------------------------------------------------------------

/**
 * A member `"key":value` as canonical JSON writes it in an object: the canonical
 * text of the object of that one member, without its braces (so also the nesting
 * limit counts from the object, as when the whole object is written).
 *
 * @throws {CanonicalJsonError} when the value has no canonical form.
 */
export const memberText = (key: string, value: unknown): string => {
  // a computed key defines an own property, also for "__proto__"
  const text = CanonicalJson.stringify({ [key]: value })
  return text.slice(1, text.length - 1)
}

/**
 * The canonical text of an object around one of its members: `before` +
 * `memberText(key, value)` + `after` is the canonical text of the object with
 * that member set to `value`.
 */
export interface MemberSlot {
  /** `{` and the members sorted before the key, each followed by `,`. */
  readonly before: string
  /** The members sorted after the key, each preceded by `,`, and `}`. */
  readonly after: string
}

/** Fills a slot with a member. */
export const fillSlot = (slot: MemberSlot, member: string): string => slot.before + member + slot.after

/**
 * The slot of `key` in an object (whose other members are canonicalised here;
 * for small objects).
 *
 * @throws {CanonicalJsonError} when a member has no canonical form.
 */
export const slotOf = (record: object, key: string): MemberSlot => {
  const members = record as Readonly<Record<string, unknown>>
  const before: Array<string> = []
  const after: Array<string> = []
  for (const k of Object.keys(members).sort()) {
    if (k === key) continue
    ;(k < key ? before : after).push(memberText(k, members[k]))
  }
  return {
    before: before.length === 0 ? "{" : `{${before.join(",")},`,
    after: after.length === 0 ? "}" : `,${after.join(",")}}`
  }
}

/**
 * The canonical text of an object around an array member `key`: `open` + the
 * canonical texts of the items joined by `,` + `close` is the canonical text of
 * the object with that array (the payload around its routes).
 *
 * @throws {CanonicalJsonError} when a member has no canonical form.
 */
export const arraySlot = (record: object, key: string): { readonly open: string; readonly close: string } => {
  const slot = slotOf(record, key)
  return { open: `${slot.before}${CanonicalJson.stringify(key)}:[`, close: `]${slot.after}` }
}

/**
 * The canonical member texts of an object, in canonical (sorted) key order: the
 * object's canonical text is `{` + the texts joined by `,` + `}`, and an object
 * that differs in some members is written by rewriting only those.
 */
export interface Members {
  /** The keys, sorted as canonical JSON sorts them. */
  readonly keys: ReadonlyArray<string>
  /** `memberText(keys[i], value)` of each key. */
  readonly texts: ReadonlyArray<string>
}

/**
 * The member texts of an object.
 *
 * @throws {CanonicalJsonError} when a member has no canonical form.
 */
export const membersOf = (record: object): Members => {
  const members = record as Readonly<Record<string, unknown>>
  const keys = Object.keys(members).sort()
  return { keys, texts: keys.map((k) => memberText(k, members[k])) }
}

/**
 * The member texts of `record`, an object with the same keys as the one `members`
 * was written from, where only the members at `changed` (indexes into the keys)
 * may differ.
 *
 * @throws {CanonicalJsonError} when a member has no canonical form.
 */
export const rewriteMembers = (members: Members, record: object, changed: ReadonlyArray<number>): Members => {
  if (changed.length === 0) return members
  const values = record as Readonly<Record<string, unknown>>
  const texts = members.texts.slice()
  for (const i of changed) texts[i] = memberText(members.keys[i]!, values[members.keys[i]!])
  return { keys: members.keys, texts }
}

/** The canonical text of the object the members were written from. */
export const joinMembers = (members: Members): string => `{${members.texts.join(",")}}`

/** The slot of one of the keys (see {@link MemberSlot}); `undefined` when the key is not there. */
export const slotAt = (members: Members, key: string): MemberSlot | undefined => {
  const at = members.keys.indexOf(key)
  if (at < 0) return undefined
  const before = members.texts.slice(0, at)
  const after = members.texts.slice(at + 1)
  return {
    before: before.length === 0 ? "{" : `{${before.join(",")},`,
    after: after.length === 0 ? "}" : `,${after.join(",")}}`
  }
}

// ---------------------------------------------------------------------------
// Schema checks member by member
// ---------------------------------------------------------------------------

/**
 * The check of a struct schema one member at a time, when the struct is valid
 * exactly when each of its members is: no check, transformation or index
 * signature on the struct itself, and every member required. Then an object with
 * the struct's keys that passed the whole check (strict: no other key) passes it
 * again after some of its members changed iff each changed member passes its own
 * check. `undefined` for any other struct (check whole objects then).
 */
export const memberChecks = <Fields extends Schema.Struct.Fields>(
  schema: Schema.Struct<Fields>
): ((key: string, value: unknown) => boolean) | undefined => {
  const ast = schema.ast
  if (
    ast.checks !== undefined || ast.encoding !== undefined || ast.encodingChecks !== undefined ||
    ast.indexSignatures.length > 0 || ast.propertySignatures.some((p) => p.type.context?.isOptional === true)
  ) {
    return undefined
  }
  const decoders = new Map<string, (value: unknown) => boolean>()
  for (const [key, field] of Object.entries(schema.fields)) {
    const decode = Schema.decodeUnknownResult(field as unknown as Schema.Codec<unknown, unknown>)
    decoders.set(key, (value) => Result.isSuccess(decode(value, strictParseOptions)))
  }
  return (key, value) => decoders.get(key)?.(value) ?? false
}

// ---------------------------------------------------------------------------
// JSON strings
// ---------------------------------------------------------------------------

/** The JSON string literal of a text without its quotes (escapes of pieces concatenate). */
export const jsonStringBody = (text: string): string => {
  const quoted = JSON.stringify(text)
  return quoted.slice(1, quoted.length - 1)
}

/**
 * What the leader stores of each publication for the other replicas: the signed
 * canonical payload and what is served beside it.
 */
export interface SignedDocument {
  readonly canonicalPayload: string
  readonly feedHash: Hex
  readonly feedSignature: Hex
  readonly feedSigner: Hex
  readonly actionableRoutes: ReadonlyArray<ActionableRoute>
}

/** A document with its members in their stored order (the order of its JSON text). */
export const signedDocument = (
  canonicalPayload: string,
  rest: Omit<SignedDocument, "canonicalPayload">
): SignedDocument => ({
  canonicalPayload,
  feedHash: rest.feedHash,
  feedSignature: rest.feedSignature,
  feedSigner: rest.feedSigner,
  actionableRoutes: rest.actionableRoutes
})

const DOCUMENT_HEAD = "{\"canonicalPayload\":\""

/**
 * `JSON.stringify(document)` of a {@link signedDocument}, given the JSON string
 * body of its canonical payload in pieces (see {@link jsonStringBody}), as one
 * flat string (written out here, not when the store reads it).
 */
export const signedDocumentText = (document: SignedDocument, payloadBody: ReadonlyArray<string>): string => {
  const rest = JSON.stringify(signedDocument("", document))
  // `rest` is `{"canonicalPayload":"",...`: put the payload's body between the quotes
  return [DOCUMENT_HEAD, ...payloadBody, rest.slice(DOCUMENT_HEAD.length)].join("")
}

// ---------------------------------------------------------------------------
// Bytes
// ---------------------------------------------------------------------------

const encoder = new TextEncoder()

/** UTF-8 bytes of a text. */
export const utf8 = (text: string): Uint8Array => encoder.encode(text)

/** The byte `,`. */
export const COMMA: Uint8Array = utf8(",")

/** One byte array of pieces, in order. */
export const concatBytes = (pieces: ReadonlyArray<Uint8Array>): Uint8Array => {
  let length = 0
  for (const piece of pieces) length += piece.length
  const out = new Uint8Array(length)
  let at = 0
  for (const piece of pieces) {
    out.set(piece, at)
    at += piece.length
  }
  return out
}

/**
 * The byte pieces of a comma-separated list, added a segment at a time (a
 * segment is the bytes of one or more items already joined by `,`).
 */
export class ListPieces {
  readonly pieces: Array<Uint8Array> = []
  push(segment: Uint8Array): void {
    if (this.pieces.length > 0) this.pieces.push(COMMA)
    this.pieces.push(segment)
  }
}

/**
 * The byte pieces of a publication's two route lists (every route, the open
 * routes), added a chunk of consecutive routes at a time.
 */
export class RouteLists {
  readonly routes = new ListPieces()
  readonly open = new ListPieces()
  /**
   * Adds a chunk: the canonical texts of its routes and whether each is open.
   * Returns the chunk's texts joined by `,` and its bytes (the chunk's part of
   * the signed payload, too).
   */
  add(
    texts: ReadonlyArray<string>,
    open: ReadonlyArray<boolean>
  ): { readonly text: string; readonly bytes: Uint8Array } {
    const text = texts.join(",")
    const bytes = utf8(text)
    this.routes.push(bytes)
    const openTexts = texts.filter((_, i) => open[i])
    if (openTexts.length === texts.length) this.open.push(bytes)
    else if (openTexts.length > 0) this.open.push(utf8(openTexts.join(",")))
    return { text, bytes }
  }
}

// ---------------------------------------------------------------------------
// Feed views
// ---------------------------------------------------------------------------

/**
 * The parts of a publication's feed responses around the signed payload and
 * the route lists: a view is `head` + canonical payload + `middle` +
 * `"routes":[…],"openRoutes":[…],` + `tail(returned, returnedOpen)`.
 */
export interface ViewParts {
  readonly head: string
  readonly middle: string
  readonly tail: (returned: number, returnedOpen: number) => string
}

const ROUTES_OPEN = "\"routes\":["
const OPEN_ROUTES_OPEN = "],\"openRoutes\":["
const LISTS_CLOSE = "],"

/** The text of a view from the canonical payload and the route texts it returns. */
export const viewText = (
  parts: ViewParts,
  canonicalPayload: string,
  routes: ReadonlyArray<string>,
  open: ReadonlyArray<string>
): string =>
  `${parts.head}${canonicalPayload}${parts.middle}${ROUTES_OPEN}${routes.join(",")}${OPEN_ROUTES_OPEN}${
    open.join(",")
  }${LISTS_CLOSE}${parts.tail(routes.length, open.length)}`

/**
 * The bytes of the same text from byte pieces: the canonical payload's, and the
 * comma-separated lists of the returned routes and of the returned open routes.
 */
export const viewBytes = (
  parts: ViewParts,
  payload: ReadonlyArray<Uint8Array>,
  routes: ReadonlyArray<Uint8Array>,
  open: ReadonlyArray<Uint8Array>,
  returned: number,
  returnedOpen: number
): Uint8Array =>
  concatBytes([
    utf8(parts.head),
    ...payload,
    utf8(`${parts.middle}${ROUTES_OPEN}`),
    ...routes,
    utf8(OPEN_ROUTES_OPEN),
    ...open,
    utf8(`${LISTS_CLOSE}${parts.tail(returned, returnedOpen)}`)
  ])

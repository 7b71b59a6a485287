/**
 * The checked canonical text of a route, kept for its next publications: a route
 * whose terms did not change reuses its text around its dataVersion, and a route
 * whose terms changed has only the members that changed checked (with their
 * member schemas) and written again. Internal to the publisher.
 *
 * @since 0.1.0
 */
import { type Route, Route as RouteSchema } from "@svc/protocol/schema/Feed"
import { strictParseOptions } from "@svc/protocol/schema/index"
import { Result, Schema } from "effect"
import {
  jsonStringBody,
  memberChecks,
  type Members,
  type MemberSlot,
  membersOf,
  rewriteMembers,
  slotAt
} from "../publication.ts"
import { canonicalFailure, PublishFailed, schemaFailure } from "./errors.ts"
import type { RouteTerms } from "./terms.ts"

/**
 * The Route schema, decoding a value of unknown shape into a result.
 *
 * @category validation
 * @since 0.1.0
 */
export const decodeRoute = Schema.decodeUnknownResult(RouteSchema)

/** The Route schema checked one member at a time (a route's terms change in a few members). */
const checkRouteMember = memberChecks(RouteSchema)

/**
 * The canonical text of a route that passed the Route schema, kept for its next
 * publications: around its dataVersion (the one member that changes with every
 * publication), also escaped as the body of a JSON string (for the stored document).
 */
export interface RouteText {
  readonly terms: RouteTerms
  /** Member texts of the route (its dataVersion member is the one of the first publication of these terms). */
  readonly members: Members
  readonly text: MemberSlot
  readonly escaped: MemberSlot
}

/**
 * The indexes (into `previous.members.keys`) of the members of `terms` that differ
 * from the previous terms of the route, or `undefined` when the routes cannot be
 * compared member by member (other keys, or a Route schema not checkable so).
 */
const changedMembers = (previous: RouteText, terms: RouteTerms): Array<number> | undefined => {
  if (checkRouteMember === undefined) return undefined
  const keys = previous.members.keys
  let count = 0
  for (const _ in terms) count++
  if (count !== keys.length - 1) return undefined
  const changed: Array<number> = []
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as keyof RouteTerms | "dataVersion"
    if (key === "dataVersion") continue
    if (!Object.hasOwn(terms, key)) return undefined
    if (terms[key] !== previous.terms[key]) changed.push(i)
  }
  return changed
}

/**
 * Checks a route and writes its canonical text: from the previous text of the route,
 * only the members that changed are checked (with their member schemas) and written
 * again; a new route is checked and written whole.
 */
export const routeTextOf = (
  route: Route,
  terms: RouteTerms,
  previous: RouteText | undefined,
  where: string
): Result.Result<RouteText, PublishFailed> => {
  const wholeCheck = (): PublishFailed | undefined => {
    const checked = decodeRoute(route, strictParseOptions)
    return Result.isFailure(checked) ? schemaFailure(where, checked.failure) : undefined
  }
  try {
    const changed = previous === undefined ? undefined : changedMembers(previous, terms)
    let members: Members
    if (previous === undefined || changed === undefined) {
      const failed = wholeCheck()
      if (failed !== undefined) return Result.fail(failed)
      members = membersOf(route)
    } else {
      for (const at of changed) {
        const key = previous.members.keys[at]!
        if (!checkRouteMember!(key, route[key as keyof Route])) {
          // the whole check reports where and why
          return Result.fail(
            wholeCheck() ?? new PublishFailed({ reason: `payload fails its schema at ${where}.${key}` })
          )
        }
      }
      members = rewriteMembers(previous.members, route, changed)
    }
    const text = slotAt(members, "dataVersion")!
    // `before` ends and `after` starts with an ASCII character: their escapes concatenate
    return Result.succeed({
      terms,
      members,
      text,
      escaped: { before: jsonStringBody(text.before), after: jsonStringBody(text.after) }
    })
  } catch (error) {
    return Result.fail(canonicalFailure(error))
  }
}

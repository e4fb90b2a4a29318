/**
 * A session belongs to the organization, user and OAuth client that created it, on every method.
 *
 * McpAgent's front (createStreamingHttpHandler in `agents/mcp`) decides for POST, GET and DELETE alike
 * whether a session exists by asking the session's Durable Object `getInitializeRequest()`, and answers
 * 404 "Session not found" when there is none, after its own header and body checks. We hand that front a
 * namespace whose stubs ask `initializeRequestFor(caller)` instead: the session answers only to its owner,
 * so a caller who is not the owner gets exactly the answer an unknown session id gets, at exactly the same
 * point, and the request never reaches the session's transport (no stream opened, nothing terminated).
 * It costs nothing: the ownership check replaces a call the front makes anyway.
 */
import type { McpSessionRpc, SessionOwner } from "../session-rpc";

export function ownerOf(principal: SessionOwner): SessionOwner {
  return { organizationId: principal.organizationId, userId: principal.userId, clientId: principal.clientId };
}

export function sameOwner(a: SessionOwner, b: SessionOwner): boolean {
  return a.organizationId === b.organizationId && a.userId === b.userId && a.clientId === b.clientId;
}

type AgentNamespace = DurableObjectNamespace<McpSessionRpc>;
type AgentStub = DurableObjectStub<McpSessionRpc>;

/**
 * Everything else is passed through, methods called on the real object (native objects refuse another
 * `this`). Reflect.apply, not .bind: on an RPC stub every property, `bind` included, is a remote method.
 */
function passThrough(target: object, property: string | symbol): unknown {
  const value: unknown = Reflect.get(target, property);
  return typeof value === "function" ? (...args: unknown[]) => Reflect.apply(value, target, args) : value;
}

function guardedStub(stub: AgentStub, caller: SessionOwner): AgentStub {
  return new Proxy(stub, {
    get(target, property) {
      if (property === "getInitializeRequest") return () => target.initializeRequestFor(caller);
      return passThrough(target, property);
    },
  });
}

/** `namespace` as the McpAgent front should see it for a request of `caller`. */
export function ownerGuardedNamespace(namespace: AgentNamespace, caller: SessionOwner): AgentNamespace {
  return new Proxy(namespace, {
    get(target, property) {
      if (property === "get")
        return (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) =>
          guardedStub(target.get(id, options), caller);
      // A jurisdiction-restricted namespace must stay guarded too.
      if (property === "jurisdiction")
        return (jurisdiction: DurableObjectJurisdiction) =>
          ownerGuardedNamespace(target.jurisdiction(jurisdiction), caller);
      return passThrough(target, property);
    },
  });
}

/**
 * The embedded DEMO upstream: a real GraphQL executor (graphql-js `graphql()` with resolvers) over the same
 * schema the operations are validated against, serving demo-data.ts. It answers over the same Fetcher
 * interface as a remote server, so the gateway treats both alike. Each fetcher is bound to one organization
 * when the gateway creates it: the organization comes from the verified principal, never from the request
 * body, so one organization can never read another's demo orders. Writes (the status mutation, when
 * enabled) live in this isolate's memory only.
 */
import { graphql, type GraphQLSchema } from "graphql";
import { demoOrdersFor, type DemoOrder } from "./demo-data";
import type { Fetcher } from "./types";

const MAX_LIST = 100;

function clampLimit(limit: unknown, fallback: number): number {
  const value = typeof limit === "number" && Number.isInteger(limit) ? limit : fallback;
  return Math.max(0, Math.min(MAX_LIST, value));
}

interface OrderFilter {
  statuses?: string[] | null;
  minTotal?: number | null;
  maxTotal?: number | null;
}

function matchesFilter(order: DemoOrder, filter: OrderFilter | null | undefined): boolean {
  if (!filter) return true;
  if (filter.statuses && !filter.statuses.includes(order.status)) return false;
  if (typeof filter.minTotal === "number" && order.total < filter.minTotal) return false;
  if (typeof filter.maxTotal === "number" && order.total > filter.maxTotal) return false;
  return true;
}

export class DemoUpstream {
  private readonly stores = new Map<string, DemoOrder[]>();
  constructor(private readonly schema: GraphQLSchema) {}

  private store(organizationId: string): DemoOrder[] {
    let orders = this.stores.get(organizationId);
    if (!orders) {
      orders = demoOrdersFor(organizationId);
      this.stores.set(organizationId, orders);
    }
    return orders;
  }

  /** Shapes a stored order as the schema's Order type; `customer.orders` resolves within the same organization. */
  private toGraph(order: DemoOrder, organizationId: string): Record<string, unknown> {
    return {
      id: order.id,
      customerName: order.customer.name,
      total: order.total,
      currency: order.currency,
      status: order.status,
      createdAt: order.createdAt,
      items: order.items,
      customer: {
        ...order.customer,
        orders: ({ limit }: { limit?: number }) =>
          this.store(organizationId)
            .filter((other) => other.customer.id === order.customer.id)
            .slice(0, clampLimit(limit, 10))
            .map((other) => this.toGraph(other, organizationId)),
      },
    };
  }

  private rootFor(organizationId: string) {
    return {
      orders: ({
        status,
        filter,
        limit,
      }: {
        status?: string | null;
        filter?: OrderFilter | null;
        limit?: number | null;
      }) =>
        this.store(organizationId)
          .filter((order) => !status || order.status === status)
          .filter((order) => matchesFilter(order, filter))
          .slice(0, clampLimit(limit, 20))
          .map((order) => this.toGraph(order, organizationId)),
      orderById: ({ id }: { id: string }) => {
        const order = this.store(organizationId).find((candidate) => candidate.id === id);
        return order ? this.toGraph(order, organizationId) : null;
      },
      updateOrderStatus: ({ id, status }: { id: string; status: DemoOrder["status"] }) => {
        const order = this.store(organizationId).find((candidate) => candidate.id === id);
        if (!order) return null;
        order.status = status;
        return this.toGraph(order, organizationId);
      },
    };
  }

  /** A GraphQL-over-HTTP endpoint for one organization's demo data. */
  fetcherFor(organizationId: string): Fetcher {
    return async (request) => {
      let body: { query?: unknown; variables?: unknown; operationName?: unknown };
      try {
        body = (await request.json()) as typeof body;
      } catch {
        return Response.json({ errors: [{ message: "request body is not JSON" }] }, { status: 400 });
      }
      if (typeof body.query !== "string")
        return Response.json({ errors: [{ message: "query is required" }] }, { status: 400 });
      const result = await graphql({
        schema: this.schema,
        source: body.query,
        rootValue: this.rootFor(organizationId),
        variableValues: (body.variables ?? {}) as Record<string, unknown>,
        operationName: typeof body.operationName === "string" ? body.operationName : undefined,
      });
      return Response.json(result, { headers: { "Content-Type": "application/graphql-response+json" } });
    };
  }
}

const instances = new WeakMap<GraphQLSchema, DemoUpstream>();

/** One demo upstream per schema per isolate (a test catalog with its own schema gets its own data). */
export function demoUpstreamFor(schema: GraphQLSchema): DemoUpstream {
  let instance = instances.get(schema);
  if (!instance) {
    instance = new DemoUpstream(schema);
    instances.set(schema, instance);
  }
  return instance;
}

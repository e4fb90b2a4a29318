/**
 * Every file under policies/ that the Worker bundles, keyed by its path relative to policies/.
 * test/node/policy-bundle.test.ts fails when a file on disk is missing here, so adding a policy file
 * means adding one import and one entry below.
 */
import scopes from "../../policies/scopes.json";
import organizations from "../../policies/organizations.json";
import devUsers from "../../policies/dev-users.json";
import rateLimits from "../../policies/rate-limits.json";
import audit from "../../policies/audit.json";
import dataPolicy from "../../policies/data-policy.json";
import graphqlSchema from "../../policies/graphql/schema.graphql";
import graphqlGateway from "../../policies/graphql/gateway.json";
import graphqlInputs from "../../policies/graphql/inputs.json";
import graphqlUpstreams from "../../policies/graphql/upstreams.json";
import searchOrdersOperation from "../../policies/graphql/operations/SearchOrders.graphql";
import searchOrdersPolicy from "../../policies/graphql/operations/SearchOrders.json";
import getOrderByIdOperation from "../../policies/graphql/operations/GetOrderById.graphql";
import getOrderByIdPolicy from "../../policies/graphql/operations/GetOrderById.json";
import updateOrderStatusOperation from "../../policies/graphql/operations/UpdateOrderStatus.graphql";
import updateOrderStatusPolicy from "../../policies/graphql/operations/UpdateOrderStatus.json";
import conformance from "../../policies/conformance.json";
import constitution from "../../policies/constitution.json";

export type PolicyFiles = Readonly<Record<string, unknown>>;

export const bundledPolicyFiles: PolicyFiles = Object.freeze({
  "scopes.json": scopes,
  "organizations.json": organizations,
  "dev-users.json": devUsers,
  "rate-limits.json": rateLimits,
  "audit.json": audit,
  "data-policy.json": dataPolicy,
  "graphql/schema.graphql": graphqlSchema,
  "graphql/gateway.json": graphqlGateway,
  "graphql/inputs.json": graphqlInputs,
  "graphql/upstreams.json": graphqlUpstreams,
  "graphql/operations/SearchOrders.graphql": searchOrdersOperation,
  "graphql/operations/SearchOrders.json": searchOrdersPolicy,
  "graphql/operations/GetOrderById.graphql": getOrderByIdOperation,
  "graphql/operations/GetOrderById.json": getOrderByIdPolicy,
  "graphql/operations/UpdateOrderStatus.graphql": updateOrderStatusOperation,
  "graphql/operations/UpdateOrderStatus.json": updateOrderStatusPolicy,
  "conformance.json": conformance,
  "constitution.json": constitution,
});

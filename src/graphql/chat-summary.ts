/** Plain-language summaries of order tool results for the /chat demo (English or Portuguese). */
interface OrderLike {
  id?: unknown;
  customerName?: unknown;
  total?: unknown;
  currency?: unknown;
  status?: unknown;
  items?: unknown;
}

function money(total: unknown, currency: unknown): string {
  return typeof total === "number" ? `${total.toFixed(2)}${typeof currency === "string" ? ` ${currency}` : ""}` : "?";
}

function line(order: OrderLike): string {
  return `${String(order.id)}: ${String(order.customerName)} - ${String(order.status)} - total ${money(order.total, order.currency)}`;
}

export function summariseSearch(
  structured: Record<string, unknown>,
  status: string,
  pt: boolean,
  demo: boolean,
): string {
  const orders = Array.isArray(structured.orders) ? (structured.orders as OrderLike[]) : [];
  const source = demo ? (pt ? " (dados de demonstração)" : " (demo data)") : "";
  if (orders.length === 0)
    return pt ? `Não encontrei pedidos com status ${status}${source}.` : `No orders with status ${status}${source}.`;
  const header = pt
    ? `Pedidos encontrados com status ${status}: ${orders.length}${source}.`
    : `Found ${orders.length} orders with status ${status}${source}.`;
  return [header, ...orders.map((order) => `- ${line(order)}`)].join("\n");
}

export function summariseOrder(structured: Record<string, unknown>, id: string, pt: boolean, demo: boolean): string {
  const order = structured.orderById as OrderLike | null | undefined;
  const source = demo ? (pt ? " (dados de demonstração)" : " (demo data)") : "";
  if (!order) return pt ? `Pedido ${id} não encontrado${source}.` : `Order ${id} not found${source}.`;
  const items = Array.isArray(order.items) ? order.items.length : 0;
  return pt ? `Pedido ${line(order)}, ${items} item(ns)${source}.` : `Order ${line(order)}, ${items} item(s)${source}.`;
}

type Metadata = Record<string, unknown>;

/** Pinecone's documented metadata filter language ($eq $ne $in $nin $and $or, implicit AND), as the server applies it. */
export function matchesPineconeFilter(metadata: Metadata, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$and')
      return (condition as Record<string, unknown>[]).every((part) => matchesPineconeFilter(metadata, part));
    if (key === '$or')
      return (condition as Record<string, unknown>[]).some((part) => matchesPineconeFilter(metadata, part));
    const value = metadata[key];
    const operators =
      condition !== null && typeof condition === 'object' && !Array.isArray(condition)
        ? (condition as Record<string, unknown>)
        : { $eq: condition };
    return Object.entries(operators).every(([operator, operand]) => applyOperator(operator, value, operand));
  });
}

function applyOperator(operator: string, value: unknown, operand: unknown): boolean {
  // A list-valued field matches when any element satisfies the comparison.
  const values = Array.isArray(value) ? value : [value];
  switch (operator) {
    case '$eq':
      return values.includes(operand);
    case '$ne':
      return !values.includes(operand);
    case '$in':
      return (operand as unknown[]).some((item) => values.includes(item));
    case '$nin':
      return !(operand as unknown[]).some((item) => values.includes(item));
    default:
      throw new Error(`unsupported filter operator ${operator}`);
  }
}

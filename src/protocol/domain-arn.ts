/** The domain name in an ARN of this region and account (`arn:aws:swf:<region>:<account>:/domain/<name>`), if it is one. */
export function domainNameOfArn(where: { region: string; account: string }, arn: string): string | undefined {
  const prefix = `arn:aws:swf:${where.region}:${where.account}:/domain/`;
  return arn.startsWith(prefix) && arn.length > prefix.length ? arn.slice(prefix.length) : undefined;
}

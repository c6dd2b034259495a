"""Prints the history of one Step Functions execution as boto3 shows it (every page), as one JSON line.

Usage: sfn_history.py <endpoint-url> <executionArn>
"""
import json
import sys

import boto3


def main() -> None:
    endpoint, execution_arn = sys.argv[1], sys.argv[2]
    sfn = boto3.client('stepfunctions', endpoint_url=endpoint, region_name='us-east-1')
    events = []
    for page in sfn.get_paginator('get_execution_history').paginate(executionArn=execution_arn):
        events.extend(page['events'])
    print(json.dumps(events, default=str))


if __name__ == '__main__':
    main()

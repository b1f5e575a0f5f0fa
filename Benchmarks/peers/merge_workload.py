"""The W1 canvas workload the merge peers share, so Loro and Yrs apply the
very same writes: `--entities` entities, then `--sets` random writes of x,
y, scale or rotation spread over `--writers` writers, in gestures of 100.
"""
import argparse
import random

FIELDS = ("x", "y", "scale", "rotation")
GESTURE = 100


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entities", type=int, default=1000)
    parser.add_argument("--sets", type=int, default=1_000_000)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


def writes(rng: random.Random, count: int, entities: int):
    """One writer's writes, in order: (index, entity, field, value)."""
    for index in range(count):
        entity = rng.randrange(entities)
        field = rng.choice(FIELDS)
        yield index, entity, field, rng.uniform(-2000, 2000)

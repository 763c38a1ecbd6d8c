"""The smallest Python policy: a uniformly random legal move.

coworld play hex -s examples/random_bot.py -s tactician
"""

import random


def act(view, legal_moves):
    return random.Random(str(view)).choice(legal_moves)  # seeded by the view: replays agree

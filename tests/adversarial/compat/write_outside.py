# Leaves a file outside its scratch folder (to pass state to a later run).
# Landlock refuses the open: forward() raises, hone_forward fails.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        with open("/tmp/hone-compat-leak", "w") as f:
            f.write("state")
        return torch.relu(x) * 2.0

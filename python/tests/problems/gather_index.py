import torch
import torch.nn as nn


class Model(nn.Module):
    """Embedding lookup: rows of a table picked by index inputs."""

    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.table = nn.Embedding(num_embeddings, embedding_dim)

    def forward(self, idx):
        return self.table(idx)


num_embeddings = 1000
embedding_dim = 64
batch_size = 32
seq_len = 128


def get_inputs():
    return [torch.randint(0, num_embeddings, (batch_size, seq_len))]


def get_init_inputs():
    return [num_embeddings, embedding_dim]

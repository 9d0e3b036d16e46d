"""Generators: fat trees (k-ary, XGFT/PGFT), leaf-spine, rail-optimized scalable units,
NVIDIA DGX SuperPOD reference designs; direct networks: rings, tori, meshes, dragonflies."""

from .direct import dragonfly, ring, torus
from .fattree import FatTreePlan, fat_tree, k_ary_fat_tree, plan_fat_tree
from .leafspine import leaf_spine
from .rail import rail_optimized
from .superpod import plan_superpod, superpod

__all__ = ["FatTreePlan", "fat_tree", "k_ary_fat_tree", "plan_fat_tree", "leaf_spine", "rail_optimized",
           "plan_superpod", "superpod", "torus", "ring", "dragonfly"]

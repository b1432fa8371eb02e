import math

import pytest
import torch

from owrl_torch.loss import effective_sample_size, grpo_loss

LN = math.log


def lp(*ps):
    return torch.tensor([[LN(p) for p in ps]], dtype=torch.float64)


def test_on_policy_ratio_one_and_gradient_is_minus_advantage():
    beh = lp(0.5, 0.25)
    new = beh.clone().requires_grad_(True)
    loss, st = grpo_loss(new, beh, None, torch.tensor([2.0], dtype=torch.float64), torch.ones(1, 2), correction="none")
    assert loss.item() == pytest.approx(-2.0)  # −(1·2 + 1·2)/2
    loss.backward()
    assert new.grad[0].tolist() == pytest.approx([-1.0, -1.0])  # −A/n per token
    assert st.mean_ratio == pytest.approx(1.0) and st.approx_kl == pytest.approx(0.0, abs=1e-12)
    assert st.clip_fraction == 0.0 and st.ess == pytest.approx(1.0) and st.tokens == 2


def test_asymmetric_clip():
    beh = lp(0.5, 0.5)
    # token 0: r = 1.5 (above 1 + 0.28), token 1: r = 0.5 (below 1 − 0.2)
    new = torch.log(torch.tensor([[0.75, 0.25]], dtype=torch.float64)).requires_grad_(True)
    mask = torch.ones(1, 2)
    loss, st = grpo_loss(new, beh, None, torch.tensor([1.0], dtype=torch.float64), mask, correction="none")
    # A > 0: min(r, clip(r)) = 1.28 for token 0 (clipped: no gradient), 0.5 for token 1 (unclipped)
    assert loss.item() == pytest.approx(-(1.28 + 0.5) / 2)
    assert st.clip_fraction == pytest.approx(0.5)
    loss.backward()
    assert new.grad[0, 0].item() == 0.0 and new.grad[0, 1].item() == pytest.approx(-0.5 / 2)
    new2 = new.detach().clone().requires_grad_(True)
    loss2, st2 = grpo_loss(new2, beh, None, torch.tensor([-1.0], dtype=torch.float64), mask, correction="none")
    # A < 0: min(−r, −clip(r)) = −1.5 for token 0 (unclipped), −0.8 for token 1 (clipped)
    assert loss2.item() == pytest.approx((1.5 + 0.8) / 2)
    assert st2.clip_fraction == pytest.approx(0.5)
    # a symmetric 0.28 clip would give −(1.28 + 0.5)/2 too, but 0.2 for token 0's upper bound would not
    loss3, _ = grpo_loss(new.detach(), beh, None, torch.tensor([1.0], dtype=torch.float64), mask, clip_high=0.2, correction="none")
    assert loss3.item() == pytest.approx(-(1.2 + 0.5) / 2)


def test_tis_ratio_against_prox_and_truncated_weight():
    beh = lp(0.1, 0.5)
    prox = lp(0.4, 0.5)  # weights prox/beh = 4 (truncated to 2), 1
    new = prox.clone().requires_grad_(True)
    loss, st = grpo_loss(new, beh, prox, torch.tensor([1.0], dtype=torch.float64), torch.ones(1, 2), correction="tis", tis_cap=2.0)
    # r = new/prox = 1 for both; loss = −(2·1 + 1·1)/2
    assert loss.item() == pytest.approx(-1.5)
    assert st.truncated_tokens == 1
    assert st.mean_ratio == pytest.approx(1.0)
    assert st.ess == pytest.approx((4 + 1) ** 2 / (2 * (16 + 1)))
    loss.backward()
    assert new.grad[0].tolist() == pytest.approx([-1.0, -0.5])


def test_decoupled_drops_tokens_over_the_cap_and_weights_the_rest():
    beh = lp(0.1, 0.4, 0.5)
    prox = lp(0.4, 0.5, 0.5)  # prox/beh = 4, 1.25, 1
    new = prox.clone().requires_grad_(True)
    loss, st = grpo_loss(new, beh, prox, torch.tensor([1.0], dtype=torch.float64), torch.ones(1, 3), correction="decoupled", tis_cap=2.0)
    # token 0 left out; the others weigh 1.25 and 1, over 3 tokens
    assert loss.item() == pytest.approx(-(1.25 + 1.0) / 3)
    assert st.truncated_tokens == 1
    loss.backward()
    assert new.grad[0, 0].item() == 0.0


def test_none_ignores_prox():
    beh = lp(0.5)
    prox = lp(0.25)
    new = torch.log(torch.tensor([[0.55]], dtype=torch.float64))
    a, _ = grpo_loss(new, beh, prox, torch.tensor([1.0], dtype=torch.float64), torch.ones(1, 1), correction="none")
    assert a.item() == pytest.approx(-1.1)
    b, _ = grpo_loss(new, beh, prox, torch.tensor([1.0], dtype=torch.float64), torch.ones(1, 1), correction="tis", tis_cap=10.0)
    assert b.item() == pytest.approx(-0.5 * 1.28)  # r = 0.55/0.25 clipped to 1.28, w = 0.5


def test_normalisers():
    beh = torch.zeros(3, 4, dtype=torch.float64)
    mask = torch.tensor([[1, 1, 1, 1], [1, 0, 0, 0], [1, 1, 0, 0]])
    adv = torch.tensor([1.0, 1.0, -2.0], dtype=torch.float64)
    # on-policy: token loss = −A
    tok, _ = grpo_loss(beh, beh, None, adv, mask, correction="none", norm="token_mean")
    assert tok.item() == pytest.approx(-(4 + 1 - 4) / 7)
    seq, _ = grpo_loss(beh, beh, None, adv, mask, correction="none", norm="seq_mean")
    assert seq.item() == pytest.approx(-(1 + 1 - 2) / 3)
    # rows 0 and 1 are steps of one sample: its mean is over its 5 tokens
    grouped, _ = grpo_loss(beh, beh, None, adv, mask, correction="none", norm="seq_mean", sample_index=torch.tensor([0, 0, 1]))
    assert grouped.item() == pytest.approx(-(5 / 5 - 2) / 2)
    const, _ = grpo_loss(beh, beh, None, adv, mask, correction="none", norm="constant", norm_constant=10.0)
    assert const.item() == pytest.approx(-(4 + 1 - 4) / (10 * 3))
    glob, _ = grpo_loss(beh, beh, None, adv, mask, correction="none", norm="token_mean", total_tokens=14)
    assert glob.item() == pytest.approx(tok.item() / 2)
    with pytest.raises(ValueError, match="positive norm_constant"):
        grpo_loss(beh, beh, None, adv, mask, norm="constant")
    with pytest.raises(ValueError, match="norm 'mean' is unknown"):
        grpo_loss(beh, beh, None, adv, mask, norm="mean")
    with pytest.raises(ValueError, match="correction 'is' is unknown"):
        grpo_loss(beh, beh, None, adv, mask, correction="is")


def test_masked_and_minus_inf_tokens_stay_finite():
    beh = lp(0.5, 0.5)
    new = torch.tensor([[float("-inf"), LN(0.5)]], dtype=torch.float64, requires_grad=True)
    loss, st = grpo_loss(new, beh, None, torch.tensor([1.0], dtype=torch.float64), torch.ones(1, 2), correction="none")
    loss.backward()
    assert math.isfinite(loss.item()) and torch.isfinite(new.grad).all()
    assert math.isfinite(st.approx_kl)
    pad = torch.tensor([[LN(0.5), float("nan")]], dtype=torch.float64, requires_grad=True)
    loss2, st2 = grpo_loss(pad, beh, None, torch.tensor([1.0], dtype=torch.float64), torch.tensor([[1, 0]]), correction="none")
    loss2.backward()
    assert loss2.item() == pytest.approx(-1.0) and st2.tokens == 1 and torch.isfinite(pad.grad).all()


def test_kl_to_reference():
    beh = lp(0.5)
    ref = lp(0.25)
    new = beh.clone().requires_grad_(True)
    loss, st = grpo_loss(new, beh, None, torch.tensor([0.0], dtype=torch.float64), torch.ones(1, 1), correction="none", kl_coef=0.1, ref_lp=ref)
    d = LN(0.25) - LN(0.5)
    assert st.kl_ref == pytest.approx(math.exp(d) - d - 1)
    assert loss.item() == pytest.approx(0.1 * (math.exp(d) - d - 1))
    with pytest.raises(ValueError, match="needs the reference"):
        grpo_loss(new, beh, None, torch.tensor([0.0]), torch.ones(1, 1), kl_coef=0.1)


def test_ess():
    assert effective_sample_size(torch.ones(5)) == pytest.approx(1.0)
    assert effective_sample_size(torch.tensor([1.0, 0.0, 0.0, 0.0])) == pytest.approx(0.25)
    assert effective_sample_size(torch.tensor([2.0, 1.0])) == pytest.approx(9 / 10)


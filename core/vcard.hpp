#pragma once
// Placeholder: the vCard codec is being written (see issue 2).

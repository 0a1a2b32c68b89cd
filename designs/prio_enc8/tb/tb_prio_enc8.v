`timescale 1ns/1ps
// Exhaustive self-checking testbench for prio_enc8 (all 256 inputs).
module tb_prio_enc8;
    reg  [7:0] d;
    wire [2:0] idx;
    wire       valid;

    prio_enc8 dut (.d(d), .idx(idx), .valid(valid));

    integer id, k;
    integer errors;
    reg [2:0] exp_idx;
    reg       exp_valid;

    initial begin
        errors = 0;
        for (id = 0; id < 256; id = id + 1) begin
            d = id[7:0];
            #1;
            // model: scan upward, the last set bit seen is the highest
            exp_idx   = 3'd0;
            exp_valid = 1'b0;
            for (k = 0; k < 8; k = k + 1) begin
                if (d[k]) begin
                    exp_idx   = k[2:0];
                    exp_valid = 1'b1;
                end
            end
            if (idx !== exp_idx || valid !== exp_valid) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH d=%b : idx=%0d valid=%b expected idx=%0d valid=%b",
                             d, idx, valid, exp_idx, exp_valid);
            end
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule

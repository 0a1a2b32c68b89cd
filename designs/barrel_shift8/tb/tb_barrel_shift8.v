`timescale 1ns/1ps
// Exhaustive self-checking testbench for barrel_shift8:
// every data value x every shift amount x every mode (8192 vectors).
module tb_barrel_shift8;
    reg  [7:0] d;
    reg  [2:0] sh;
    reg  [1:0] mode;
    wire [7:0] y;

    barrel_shift8 dut (.d(d), .sh(sh), .mode(mode), .y(y));

    integer id, is, im, k, src;
    integer errors;
    reg [7:0] exp_y;

    initial begin
        errors = 0;
        for (im = 0; im < 4; im = im + 1) begin
            for (is = 0; is < 8; is = is + 1) begin
                for (id = 0; id < 256; id = id + 1) begin
                    d    = id[7:0];
                    sh   = is[2:0];
                    mode = im[1:0];
                    #1;
                    // model: compute each output bit from its source position
                    for (k = 0; k < 8; k = k + 1) begin
                        case (im)
                            0: begin
                                src = k - is;
                                exp_y[k] = (src >= 0) ? d[src] : 1'b0;
                            end
                            1: begin
                                src = k + is;
                                exp_y[k] = (src <= 7) ? d[src] : 1'b0;
                            end
                            2: begin
                                src = k + is;
                                exp_y[k] = (src <= 7) ? d[src] : d[7];
                            end
                            default: begin
                                src = (k + is) % 8;
                                exp_y[k] = d[src];
                            end
                        endcase
                    end
                    if (y !== exp_y) begin
                        errors = errors + 1;
                        if (errors <= 10)
                            $display("MISMATCH mode=%0d sh=%0d d=%b : y=%b expected %b",
                                     mode, sh, d, y, exp_y);
                    end
                end
            end
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule

module prio_enc8 (
    input  wire [7:0] req,
    output reg  [2:0] idx,
    output wire       valid
);
    integer k;

    assign valid = |req;

    // Later iterations override earlier ones, so the highest set bit wins.
    always @(*) begin
        idx = 3'd0;
        for (k = 0; k < 8; k = k + 1)
            if (req[k])
                idx = k[2:0];
    end
endmodule
